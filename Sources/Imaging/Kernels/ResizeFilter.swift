#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The reconstruction filter used by `PixelImage.resized`.
package enum ResizeFilter: String, Sendable, CaseIterable {
  /// Windowed sinc with three lobes: sharp, slight ringing.
  case lanczos3
  /// The triangle filter (widened when shrinking, so it averages rather than skips).
  case bilinear

  var support: Double {
    switch self {
    case .lanczos3: return 3
    case .bilinear: return 1
    }
  }

  func weight(_ x: Double) -> Double {
    let distance = abs(x)
    switch self {
    case .bilinear:
      return max(0, 1 - distance)
    case .lanczos3:
      if distance < 1e-9 { return 1 }
      if distance >= 3 { return 0 }
      let pix = Double.pi * distance
      return 3 * sin(pix) * sin(pix / 3) / (pix * pix)
    }
  }
}

/// For each output coordinate along one axis: the first source index and normalised weights.
///
/// The weights are stored flat, `taps` per output coordinate (zero-padded at the end), so
/// the kernels read them through one pointer with no per-coordinate array.
struct ResampleAxis: Sendable {
  let starts: [Int]
  /// How many weights each output coordinate has (the last ones may be zero).
  let taps: Int
  /// `weights[output * taps + tap]` is the weight of source `starts[output] + tap`.
  let weights: [Float]

  init(sourceSize: Int, targetSize: Int, filter: ResizeFilter) {
    let scale = Double(targetSize) / Double(sourceSize)
    let stretch = max(1, 1 / scale)
    let support = filter.support * stretch
    var starts = [Int]()
    var rows = [[Float]]()
    starts.reserveCapacity(targetSize)
    rows.reserveCapacity(targetSize)
    for target in 0..<targetSize {
      let centre = (Double(target) + 0.5) / scale
      let first = max(0, Int((centre - support).rounded(.down)))
      let last = min(sourceSize - 1, Int((centre + support).rounded(.up)))
      var taps = (first...last).map { source in filter.weight((Double(source) + 0.5 - centre) / stretch) }
      let total = taps.reduce(0, +)
      taps = taps.map { $0 / total }
      starts.append(first)
      rows.append(taps.map { Float($0) })
    }
    let taps = rows.map(\.count).max() ?? 0
    // A start is moved left where the padded window would run past the last source index;
    // the weights then begin with zeros, so every window lies inside the source.
    var weights = [Float](repeating: 0, count: targetSize * taps)
    for (target, row) in rows.enumerated() {
      let shift = max(0, starts[target] + taps - sourceSize)
      starts[target] -= shift
      for (tap, weight) in row.enumerated() { weights[target * taps + shift + tap] = weight }
    }
    self.starts = starts
    self.taps = taps
    self.weights = weights
  }
}
