/// Exact pixel rearrangements: crop, flip, rotate. These are memory-bound and fast, so
/// they run synchronously.
extension PixelImage {
  /// The rectangle at (`x`, `y`) of the given size.
  ///
  /// - Throws: `ImagingError.invalidArgument` when the rectangle is empty or leaves the image.
  package func cropped(x: Int, y: Int, width: Int, height: Int) throws(ImagingError) -> PixelImage {
    guard width > 0, height > 0, x >= 0, y >= 0, x + width <= self.width, y + height <= self.height else {
      throw .invalidArgument(
        operation: "crop",
        reason: "rectangle \(width)x\(height) at (\(x), \(y)) is not inside the \(self.width)x\(self.height) image")
    }
    let result = PixelStorage(count: width * height * 4)
    for row in 0..<height {
      let source = storage.base + ((y + row) * self.width + x) * 4
      (result.base + row * width * 4).update(from: source, count: width * 4)
    }
    return PixelImage(width: width, height: height, storage: result)
  }

  /// Mirrored left-right and/or top-bottom.
  package func flipped(horizontal: Bool = false, vertical: Bool = false) -> PixelImage {
    let result = PixelStorage(count: storage.count)
    let source = storage.words
    let target = result.words
    for y in 0..<height {
      let sourceRow = source + (vertical ? height - 1 - y : y) * width
      let targetRow = target + y * width
      if horizontal {
        for x in 0..<width { targetRow[x] = sourceRow[width - 1 - x] }
      } else {
        targetRow.update(from: sourceRow, count: width)
      }
    }
    return PixelImage(width: width, height: height, storage: result)
  }

  /// Rotated clockwise by 90, 180 or 270 degrees (negative multiples of 90 turn counter-clockwise).
  ///
  /// - Throws: `ImagingError.invalidArgument` for angles that are not multiples of 90.
  package func rotated(degrees: Int) throws(ImagingError) -> PixelImage {
    guard degrees % 90 == 0 else {
      throw .invalidArgument(operation: "rotate", reason: "\(degrees) degrees is not a multiple of 90")
    }
    return rotated(quarterTurns: degrees / 90)
  }

  /// Rotated clockwise by `quarterTurns` × 90 degrees.
  func rotated(quarterTurns: Int) -> PixelImage {
    let turns = ((quarterTurns % 4) + 4) % 4
    switch turns {
    case 0: return self
    case 2: return flipped(horizontal: true, vertical: true)
    default: break
    }
    let result = PixelStorage(count: storage.count)
    let source = storage.words
    let target = result.words
    let newWidth = height
    let newHeight = width
    // Walk the source row by row (sequential reads); writes stride down a column.
    for y in 0..<height {
      let sourceRow = source + y * width
      if turns == 1 {
        let column = height - 1 - y
        for x in 0..<width { target[x * newWidth + column] = sourceRow[x] }
      } else {
        let column = y
        for x in 0..<width { target[(newHeight - 1 - x) * newWidth + column] = sourceRow[x] }
      }
    }
    return PixelImage(width: newWidth, height: newHeight, storage: result)
  }
}
