/// Why an image could not be read, transformed, written or fetched.
package enum ImagingError: Error, CustomStringConvertible, Equatable {
  /// The input had no bytes at all.
  case emptyInput(name: String)
  /// The input's first bytes match no supported format.
  case unknownFormat(name: String, firstBytes: String)
  /// The decoder rejected the data (corrupt or truncated).
  case corrupt(name: String, reason: String)
  /// The header announces more pixels than allowed.
  case tooManyPixels(name: String, width: Int, height: Int, limit: Int)
  /// The encoder failed.
  case encodeFailed(format: String, reason: String)
  /// A file could not be read.
  case unreadable(path: String, reason: String)
  /// A file could not be written.
  case unwritable(path: String, reason: String)
  /// The path's extension names no format we can write.
  case unknownExtension(path: String, ext: String)
  /// A kernel was given an argument it cannot use.
  case invalidArgument(operation: String, reason: String)
  /// A fetched URL answered with an HTTP error status.
  case httpStatus(url: String, status: Int)
  /// A URL could not be fetched at all.
  case fetchFailed(url: String, reason: String)
  /// A fetched body was larger than allowed.
  case responseTooLarge(url: String, limit: Int)

  package var description: String {
    switch self {
    case .emptyInput(let name):
      return "'\(name)' is empty (0 bytes)"
    case .unknownFormat(let name, let firstBytes):
      return "'\(name)' is not a png or jpeg image (it starts with \(firstBytes))"
    case .corrupt(let name, let reason):
      return "'\(name)' is corrupt or truncated: \(reason)"
    case .tooManyPixels(let name, let width, let height, let limit):
      return "'\(name)' is \(width)x\(height) = \(width * height) pixels, more than the limit of \(limit)"
    case .encodeFailed(let format, let reason):
      return "could not encode \(format): \(reason)"
    case .unreadable(let path, let reason):
      return "cannot read '\(path)': \(reason)"
    case .unwritable(let path, let reason):
      return "cannot write '\(path)': \(reason)"
    case .unknownExtension(let path, let ext):
      let shown = ext.isEmpty ? "no extension" : "extension '.\(ext)'"
      return "cannot save '\(path)': \(shown) is not a known image format (use .png, .jpg or .jpeg)"
    case .invalidArgument(let operation, let reason):
      return "\(operation): \(reason)"
    case .httpStatus(let url, let status):
      return "fetching '\(url)' failed with http status \(status)"
    case .fetchFailed(let url, let reason):
      return "fetching '\(url)' failed: \(reason)"
    case .responseTooLarge(let url, let limit):
      return "fetching '\(url)' failed: the response is larger than the limit of \(limit) bytes"
    }
  }
}
