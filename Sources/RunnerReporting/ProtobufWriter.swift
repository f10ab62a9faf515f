/// The protocol buffers wire format, for the few messages runner sends that have no generated
/// code (OTLP's trace export): fields written in order, each message into its own buffer.
struct ProtobufWriter {
  private(set) var bytes: [UInt8] = []

  mutating func varint(_ value: UInt64) {
    var rest = value
    while rest >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
      rest >>= 7
    }
    bytes.append(UInt8(rest))
  }

  mutating func tag(_ field: Int, _ wireType: UInt64) { varint(UInt64(field) << 3 | wireType) }

  /// A `uint32`, `int64` or enum field (zero, the default, is left out).
  mutating func integer(_ field: Int, _ value: Int64) {
    guard value != 0 else { return }
    tag(field, 0)
    varint(UInt64(bitPattern: value))
  }

  mutating func bool(_ field: Int, _ value: Bool) {
    tag(field, 0)
    varint(value ? 1 : 0)
  }

  mutating func fixed64(_ field: Int, _ value: UInt64) {
    tag(field, 1)
    for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
  }

  mutating func double(_ field: Int, _ value: Double) { fixed64(field, value.bitPattern) }

  mutating func data(_ field: Int, _ value: [UInt8]) {
    tag(field, 2)
    varint(UInt64(value.count))
    bytes.append(contentsOf: value)
  }

  mutating func string(_ field: Int, _ value: String) { data(field, Array(value.utf8)) }

  mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
    var inner = ProtobufWriter()
    build(&inner)
    data(field, inner.bytes)
  }
}
