import RunnerKit

/// Parses arbitrary bytes as a task's $RUNNER_OUTPUT file and checks what comes back: keys are
/// non-empty and unique, and no value exceeds the size limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOutputFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard let outputs = try? OutputFileParser.parse(bytes) else { return 0 }
  var seen = Set<String>()
  for (key, value) in outputs {
    precondition(!key.isEmpty, "empty key")
    precondition(seen.insert(key).inserted, "duplicate key \(key)")
    precondition(value.utf8.count <= OutputFileParser.valueLimit * 3, "value over the limit")
  }
  return 0
}
