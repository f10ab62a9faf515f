/// A symmetric kernel in 16-bit fixed point, for `SeparableConvolution`.
///
/// `centre` is the centre weight × 65536; `pairs[k - 1]` is the sum of the two weights at
/// distance k (2 × w[k]) × 65536, because the convolution adds each mirrored pair of taps
/// before multiplying. The weights sum to exactly 65536 (the rounding error goes into the
/// centre), so a flat image stays flat.
struct FixedPointKernel: Sendable {
  let centre: UInt16
  let pairs: [UInt16]

  var radius: Int { pairs.count }

  init(_ kernel: GaussianKernel) {
    let pairs = kernel.weights.dropFirst().map { UInt16((2 * Double($0) * 65536).rounded()) }
    let rest = pairs.reduce(0) { $0 + Int($1) }
    // Only a tiny sigma would want the full 65536 here; 65535 is 1/65536 short, well under rounding.
    centre = UInt16(min(max(65536 - rest, 0), 65535))
    self.pairs = pairs
  }
}
