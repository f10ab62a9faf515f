import RunnerKit

/// Parses arbitrary text as a `${{ }}` template; what parses must print back to text that
/// parses to the same template.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  guard let template = try? Template.parse(text) else { return 0 }
  guard let again = try? Template.parse(template.description) else {
    preconditionFailure("the printed template does not parse: \(template.description)")
  }
  precondition(again.references.map(\.task) == template.references.map(\.task), "tasks changed")
  precondition(again.references.map(\.key) == template.references.map(\.key), "keys changed")
  _ = template.render { task, key in task + key }
  return 0
}
