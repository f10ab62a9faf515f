import Foundation
import Glibc
import Testing

@testable import RunnerBasics
@testable import RunnerKit

/// Console writes held on one thread (the reactor's) come out in the order they were made,
/// whichever thread writes next, and nothing held is lost.
@Suite(.serialized) struct HeldWritesTests {
  @Test func writesFromAnotherThreadGoOutAfterWhatWasHeldAndNothingIsLost() throws {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer { close(ends[0]) }
    let writer = ends[1]
    let toMain = DispatchSemaphore(value: 0)
    let toHolder = DispatchSemaphore(value: 0)
    let holder = Thread {
      Terminal.holdWrites()
      Terminal.write("a1 ", to: writer)
      Terminal.write("a2 ", to: writer)
      toMain.signal()  // another thread writes now
      toHolder.wait()
      Terminal.write("a3 ", to: writer)
      Terminal.stopHolding()
      toMain.signal()
    }
    holder.start()
    toMain.wait()
    Terminal.write("b1 ", to: writer)
    toHolder.signal()
    toMain.wait()
    close(writer)
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 256)
    while true {
      let count = read(ends[0], &chunk, chunk.count)
      if count <= 0 { break }
      bytes.append(contentsOf: chunk[..<count])
    }
    #expect(String(decoding: bytes, as: UTF8.self) == "a1 a2 b1 a3 ")
  }
}
