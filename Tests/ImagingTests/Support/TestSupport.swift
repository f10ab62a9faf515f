import Testing

@testable import Imaging

#if canImport(Glibc)
  import Glibc
#endif

/// Paths and helpers shared by the imaging tests.
enum Fixtures {
  static let directory: String = {
    let file = "\(#filePath)"
    let support = file[..<file.lastIndex(of: "/")!]
    let tests = support[..<support.lastIndex(of: "/")!]
    return tests + "/Fixtures"
  }()

  static func path(_ name: String) -> String { directory + "/" + name }

  static func bytes(_ name: String) throws -> [UInt8] { try FileIO.readAll(path: path(name)) }

  /// The 5x4 pattern the PNG fixtures encode (see make_fixtures.py).
  static func pattern(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
    (UInt8(50 * x), UInt8(80 * y), UInt8(200 - 40 * x), UInt8(255 - 60 * y))
  }
}

/// A fresh directory under /tmp, removed by `remove()`.
struct TemporaryDirectory {
  let path: String

  init() {
    var template = Array("/tmp/imaging-tests-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  func entries(_ subdirectory: String = "") -> [String] {
    guard let dir = opendir(path + subdirectory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }

  func remove() {
    _ = system("rm -rf '\(path)'")
  }
}

/// A test image whose every pixel differs: r = x, g = y, b = (x + y) % 256, a = 255.
func gradientImage(width: Int, height: Int) -> PixelImage {
  var pixels = [UInt8](repeating: 255, count: width * height * 4)
  for y in 0..<height {
    for x in 0..<width {
      let index = (y * width + x) * 4
      pixels[index] = UInt8(x % 256)
      pixels[index + 1] = UInt8(y % 256)
      pixels[index + 2] = UInt8((x + y) % 256)
    }
  }
  return PixelImage(width: width, height: height, pixels: pixels)
}

/// The largest per-channel difference between two same-sized images.
func maxDifference(_ a: PixelImage, _ b: PixelImage) -> Int {
  precondition(a.width == b.width && a.height == b.height)
  return zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

/// The mean per-channel difference between two same-sized images.
func meanDifference(_ a: PixelImage, _ b: PixelImage) -> Double {
  precondition(a.width == b.width && a.height == b.height)
  let total = zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
  return Double(total) / Double(a.pixelCount * 4)
}

func expectPixel(
  _ image: PixelImage, x: Int, y: Int, _ expected: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), tolerance: Int = 0,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let actual = image.pixel(x: x, y: y)
  let close =
    abs(Int(actual.r) - Int(expected.r)) <= tolerance && abs(Int(actual.g) - Int(expected.g)) <= tolerance
    && abs(Int(actual.b) - Int(expected.b)) <= tolerance && abs(Int(actual.a) - Int(expected.a)) <= tolerance
  #expect(close, "pixel (\(x), \(y)) is \(actual), expected \(expected)", sourceLocation: sourceLocation)
}
