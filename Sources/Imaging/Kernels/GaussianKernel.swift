#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A normalised, symmetric 1-D Gaussian: `weights[0]` is the centre tap, `weights[k]`
/// the tap at distance k on either side, with radius ceil(3σ).
struct GaussianKernel: Sendable {
  let weights: [Float]

  var radius: Int { weights.count - 1 }

  init(sigma: Double) {
    let radius = max(1, Int((3 * sigma).rounded(.up)))
    var taps = (0...radius).map { distance in
      exp(-Double(distance * distance) / (2 * sigma * sigma))
    }
    let total = taps[0] + 2 * taps[1...].reduce(0, +)
    taps = taps.map { $0 / total }
    weights = taps.map { Float($0) }
  }
}
