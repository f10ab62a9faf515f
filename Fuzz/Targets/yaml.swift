import RunnerKit

/// Feeds arbitrary bytes through the whole task-file pipeline: UTF-8 check, libyaml, schema
/// decoding, graph checks and cycle detection, then renders every diagnostic as the CLI would.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTaskFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  do {
    let graph = try TaskFileLoader().load(bytes: bytes, path: "fuzz/tasks.yml")
    precondition(graph.count > 0, "a validated graph has at least one task")
  } catch {
    precondition(!error.diagnostics.isEmpty, "a failed load explains itself")
    _ = error.description
  }
  return 0
}
