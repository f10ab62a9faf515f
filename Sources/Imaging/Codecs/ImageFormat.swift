/// The encoded image formats runner reads and writes.
package enum ImageFormat: String, Sendable, CaseIterable {
  case png
  case jpeg

  /// Identifies the format from the first bytes, not from a file name.
  package static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
    return nil
  }

  /// The format a path's extension asks for when saving (case-insensitive).
  package static func forSaving(path: String) throws(ImagingError) -> ImageFormat {
    let ext = pathExtension(path)
    switch ext.lowercased() {
    case "png": return .png
    case "jpg", "jpeg": return .jpeg
    default: throw .unknownExtension(path: path, ext: ext)
    }
  }

  static func pathExtension(_ path: String) -> String {
    let fileName = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
    guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return "" }
    return String(fileName[fileName.index(after: dot)...])
  }

  /// A short human description of some leading bytes, for error messages.
  static func describeLeadingBytes(_ bytes: [UInt8]) -> String {
    let head = bytes.prefix(8)
    let hex = head.map { byte in
      let digits = String(byte, radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }.joined(separator: " ")
    let printable = head.allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    if printable {
      let text = String(decoding: head, as: UTF8.self)
        .replacingNewlines()
      return "bytes \(hex), text \"\(text)\""
    }
    return "bytes \(hex)"
  }
}

extension String {
  fileprivate func replacingNewlines() -> String {
    var result = ""
    for character in self {
      switch character {
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default: result.append(character)
      }
    }
    return result
  }
}
