/// Reads the outputs a task wrote to its `$RUNNER_OUTPUT` file, in GitHub Actions' format.
///
/// Each line is `key=value`, or `key<<DELIMITER` followed by value lines and a line that is
/// exactly `DELIMITER` (for multi-line values). CRLF line ends are accepted, empty lines between
/// entries are skipped, values are kept verbatim (bytes that are not UTF-8 become U+FFFD).
package enum OutputFileParser {
  /// The largest value accepted, in bytes.
  package static let valueLimit = 1 << 20

  /// The outputs in the order their keys first appear; a repeated key keeps its last value.
  ///
  /// - Throws: `OutputFileError` naming the first offending line.
  package static func parse(_ bytes: some Collection<UInt8>) throws(OutputFileError) -> [(key: String, value: String)] {
    let lines = Array(bytes).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
      line.last == UInt8(ascii: "\r") ? line.dropLast() : line
    }
    var outputs: [(key: String, value: String)] = []
    var positions: [String: Int] = [:]
    var index = 0
    while index < lines.count {
      let line = lines[index]
      let number = index + 1
      index += 1
      if line.isEmpty { continue }
      let equals = line.firstIndex(of: UInt8(ascii: "="))
      let heredoc = heredocStart(in: line)
      let key: String
      let value: String
      if let equals, heredoc.map({ equals < $0 }) ?? true {
        key = try validKey(line[..<equals], line: number)
        let valueBytes = line[(equals + 1)...]
        if valueBytes.count > valueLimit { throw .valueTooLarge(key: key, line: number) }
        value = String(decoding: valueBytes, as: UTF8.self)
      } else if let heredoc {
        key = try validKey(line[..<heredoc], line: number)
        let delimiter = line[(heredoc + 2)...]
        if delimiter.isEmpty { throw .emptyDelimiter(line: number) }
        var valueLines: [ArraySlice<UInt8>] = []
        var size = 0
        while true {
          guard index < lines.count else {
            throw .unterminatedValue(key: key, delimiter: String(decoding: delimiter, as: UTF8.self), line: number)
          }
          let valueLine = lines[index]
          index += 1
          if valueLine.elementsEqual(delimiter) { break }
          size += valueLine.count + (valueLines.isEmpty ? 0 : 1)
          if size > valueLimit { throw .valueTooLarge(key: key, line: number) }
          valueLines.append(valueLine)
        }
        value = String(decoding: Array(valueLines.joined(separator: [UInt8(ascii: "\n")])), as: UTF8.self)
      } else {
        throw .malformedLine(line: number)
      }
      if let position = positions[key] {
        outputs[position].value = value
      } else {
        positions[key] = outputs.count
        outputs.append((key, value))
      }
    }
    return outputs
  }

  /// The outputs as a dictionary; a repeated key keeps its last value.
  package static func parseDictionary(_ bytes: some Collection<UInt8>) throws(OutputFileError) -> [String: String] {
    Dictionary(try parse(bytes), uniquingKeysWith: { _, last in last })
  }

  private static func heredocStart(in line: ArraySlice<UInt8>) -> Int? {
    var index = line.startIndex
    while index + 1 < line.endIndex {
      if line[index] == UInt8(ascii: "<"), line[index + 1] == UInt8(ascii: "<") { return index }
      index += 1
    }
    return nil
  }

  private static func validKey(_ bytes: ArraySlice<UInt8>, line: Int) throws(OutputFileError) -> String {
    let key = String(decoding: bytes, as: UTF8.self)
    let valid =
      !bytes.isEmpty
      && bytes.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"),
          UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
          return true
        default:
          return false
        }
      }
    if !valid { throw .invalidKey(key, line: line) }
    return key
  }
}
