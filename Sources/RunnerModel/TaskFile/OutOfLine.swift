/// Fields few values set, kept behind one pointer: an optional `OutOfLine` costs 8 bytes where
/// the fields would cost their whole size in every value (a `Dependency`'s `with` and
/// `args: pass`, a `Command`'s call and `ignore_error`). Immutable: a change makes a new one, so
/// copies never share a write.
package final class OutOfLine<Value: Hashable & Sendable>: Sendable, Hashable {
  package let value: Value

  private init(_ value: Value) { self.value = value }

  /// `value`, or nil when it is `empty`: a value that sets none of the fields allocates nothing.
  package static func keeping(_ value: Value, unless empty: Value) -> OutOfLine? {
    value == empty ? nil : OutOfLine(value)
  }

  /// Changes the fields `box` holds (`empty` when it holds none).
  package static func update(_ box: inout OutOfLine?, empty: Value, _ change: (inout Value) -> Void) {
    var value = box?.value ?? empty
    change(&value)
    box = keeping(value, unless: empty)
  }

  package static func == (lhs: OutOfLine, rhs: OutOfLine) -> Bool { lhs.value == rhs.value }

  package func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
