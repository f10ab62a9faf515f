import Testing

@testable import Imaging

@Suite("Row progress between a producer thread and kernel bands")
struct RowProgressTests {
  @Test func waitersSeeRowsPublishedByAnotherThread() async throws {
    let progress = RowProgress()
    try BackgroundThread.start("test producer") {
      for rows in stride(from: 1, through: 500, by: 1) { progress.publish(rows: rows) }
      progress.end()
    }
    #expect(progress.waitForRow(499))
    #expect(progress.waitUntilEnded() == nil)
  }

  @Test func completionPublishesOnlyTheUnbrokenPrefix() {
    let completion = BandCompletion()
    completion.complete(10..<20)
    completion.complete(0..<5)
    completion.progress.end()
    #expect(completion.progress.waitForRow(4))
    #expect(!completion.progress.waitForRow(5))  // rows 5..<10 never came
  }

  @Test func aFailedProducerReleasesWaitersWithItsError() {
    let progress = RowProgress()
    progress.publish(rows: 3)
    progress.end(.corrupt(name: "x.jpg", reason: "premature end"))
    #expect(progress.waitForRow(2))
    #expect(!progress.waitForRow(3))
    #expect(progress.waitUntilEnded() == .corrupt(name: "x.jpg", reason: "premature end"))
  }

  @Test func aCancelledTaskStopsWaiting() async {
    let progress = RowProgress()
    let waiter = Task { progress.waitForRow(0) }
    waiter.cancel()
    #expect(await waiter.value == false)
  }

  @Test func bytesAreReadableWithoutACopy() {
    let image = PixelImage(width: 3, height: 2, fill: (1, 2, 3, 4))
    let sum = image.withUnsafeBytes { $0.reduce(0) { $0 + Int($1) } }
    #expect(sum == 6 * 10)
  }
}
