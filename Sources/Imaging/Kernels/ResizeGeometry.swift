/// Works out a resize target from any combination of width, height and scale.
package enum ResizeGeometry {
  /// The output size for a `sourceWidth`×`sourceHeight` image.
  ///
  /// - A `scale` multiplies both sides (and excludes width and height).
  /// - Width and height together are taken as they are.
  /// - Only one of them keeps the aspect ratio (the other side is rounded, at least 1).
  ///
  /// - Throws: `ImagingError.invalidArgument` when nothing or something non-positive is given.
  package static func targetSize(
    sourceWidth: Int, sourceHeight: Int, width: Int? = nil, height: Int? = nil, scale: Double? = nil
  ) throws(ImagingError) -> (width: Int, height: Int) {
    if let scale {
      guard width == nil, height == nil else {
        throw .invalidArgument(operation: "resize", reason: "give either a scale or a width/height, not both")
      }
      guard scale.isFinite, scale > 0 else {
        throw .invalidArgument(operation: "resize", reason: "scale \(scale) must be positive")
      }
      return (
        max(1, Int((Double(sourceWidth) * scale).rounded())), max(1, Int((Double(sourceHeight) * scale).rounded()))
      )
    }
    switch (width, height) {
    case (nil, nil):
      throw .invalidArgument(operation: "resize", reason: "give a width, a height or a scale")
    case (let width?, _) where width <= 0, (_, let width?) where width <= 0:
      throw .invalidArgument(operation: "resize", reason: "size \(width) must be positive")
    case (let width?, let height?):
      return (width, height)
    case (let width?, nil):
      return (width, max(1, Int((Double(sourceHeight) * Double(width) / Double(sourceWidth)).rounded())))
    case (nil, let height?):
      return (max(1, Int((Double(sourceWidth) * Double(height) / Double(sourceHeight)).rounded())), height)
    }
  }
}
