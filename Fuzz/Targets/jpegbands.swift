import Dispatch
import Imaging

/// Feeds arbitrary bytes behind a JPEG start-of-image marker through the overlapped pipeline:
/// the band decoder on its own thread, a blur following its rows, the band encoder following
/// the blur. Whatever the input, the pipeline must fail cleanly, or give the same pixels as
/// decoding whole and blurring after.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGBands(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let marker: [UInt8] = [0xFF, 0xD8, 0xFF]
  var bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if !bytes.starts(with: marker) { bytes = marker + bytes }
  let input = bytes
  let done = DispatchSemaphore(value: 0)
  Task.detached {
    defer { done.signal() }
    let kernel = LeadingKernel.blur(sigma: 1)
    guard
      let piped = try? await ImageCodec.decode(
        input, name: "fuzz.jpg", maxPixels: 1 << 20, applying: kernel, encodingJPEG: 80)
    else { return }
    guard let whole = try? ImageCodec.decode(input, name: "fuzz.jpg", maxPixels: 1 << 20) else {
      preconditionFailure("the pipeline decoded what the whole decoder refuses")
    }
    let blurred = try? await kernel.apply(to: whole)
    precondition(blurred?.pixels == piped.image.pixels, "banded and whole decoding differ")
  }
  done.wait()
  return 0
}
