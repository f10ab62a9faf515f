/// What the cache needs of images, which it stores but does not decode: the digest of an image
/// task's pixels from the PNG its entry holds (`Fingerprint.pixelDigest`, in the layer that
/// knows images). A dry run's prediction of what a restored image task hands on needs it.
package protocol ImageDigesting: Sendable {
  /// The pixels' digest; nil for bytes that do not decode as a PNG.
  func pixelDigest(ofPNG png: [UInt8], name: String) -> String?
}
