import Foundation
import RunnerProcess
import Testing

/// The jobserver's pools with real fifos: a "tool" here is this test reading and writing them.
@Suite struct JobserverPoolTests {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-js-\(UUID().uuidString)").path

  init() throws { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }

  private func path(_ grant: JobGrant) -> String {
    guard case .fifo(let path) = grant.auth else { fatalError("not a fifo: \(grant.auth)") }
    return path
  }

  /// Takes up to `count` tokens from the fifo as a tool does; returns how many it got.
  private func toolTakes(_ count: Int, from path: String) -> Int {
    let fd = open(path, O_RDONLY | O_NONBLOCK)
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: count)
    return max(0, read(fd, &buffer, count))
  }

  private func toolGivesBack(_ count: Int, to path: String) {
    let fd = open(path, O_WRONLY | O_NONBLOCK)
    defer { close(fd) }
    let tokens = [UInt8](repeating: UInt8(ascii: "+"), count: count)
    #expect(write(fd, tokens, count) == count)
  }

  @Test func tasksTakeTheSlotsAndGiveThemBack() {
    let server = Jobserver(jobs: 3, temporaryDirectories: [directory])
    defer { server.close() }
    #expect(server.take() && server.take() && server.take())
    #expect(!server.take())
    server.give()
    #expect(server.take())
  }

  @Test func whatATaskWasLentComesBackWhenItEndsEvenIfItsToolNeverGaveItBack() throws {
    let server = Jobserver(jobs: 3, temporaryDirectories: [directory])
    defer { server.close() }
    #expect(server.take())
    let grant = try #require(try server.grant(.fifo))
    // One spare goes to the pool; once its make took it, another (the tick's `lend`).
    #expect(server.counts.free == 1 && server.counts.lent == 1)
    #expect(toolTakes(1, from: path(grant)) == 1)
    server.lend()
    #expect(server.counts.free == 0 && server.counts.lent == 2)
    // The make took both and was killed.
    #expect(toolTakes(1, from: path(grant)) == 1)
    #expect(!server.take())
    server.end(grant, leftBehind: false)
    server.give()
    #expect(server.counts.free == 3)
    #expect(server.take() && server.take() && server.take())
  }

  /// An ended task's pool goes to the next task that asks, empty: the token lent to the first
  /// task and never taken is not in it twice.
  @Test func anEndedTasksPoolIsEmptiedAndKeptForTheNext() throws {
    let server = Jobserver(jobs: 2, temporaryDirectories: [directory])
    #expect(server.take())
    let first = try #require(try server.grant(.fifo))
    #expect(server.counts.free == 0 && server.counts.lent == 1)
    server.end(first, leftBehind: false)
    #expect(server.counts.free == 1 && server.counts.lent == 0)
    let second = try #require(try server.grant(.fifo))
    #expect(path(second) == path(first))
    #expect(server.counts.free == 0 && server.counts.lent == 1)
    #expect(toolTakes(4, from: path(second)) == 1)
    server.end(second, leftBehind: false)
    let pipe = try #require(try server.grant(.pipe))
    server.end(pipe, leftBehind: false)
    #expect(try #require(try server.grant(.pipe)).inherited == pipe.inherited)
    // A task that left a process behind: its pool is not kept.
    let third = try #require(try server.grant(.fifo))
    server.end(third, leftBehind: true)
    #expect(!FileManager.default.fileExists(atPath: path(third)))
    // The run's end removes the kept pools with the rest. The pipe's ends are seen closed
    // through a copy of its read end (another test may reuse the numbers at once): no
    // writer is left, so a read ends at once.
    let probe = dup(pipe.inherited[0])
    defer { close(probe) }
    #expect(fcntl(probe, F_SETFL, O_NONBLOCK) == 0)
    server.close()
    #expect(!FileManager.default.fileExists(atPath: path(first)))
    var byte: UInt8 = 0
    #expect(read(probe, &byte, 1) == 0)
  }

  @Test func aTokenNoToolHoldsGoesBackToTheScheduler() throws {
    let server = Jobserver(jobs: 2, temporaryDirectories: [directory])
    defer { server.close() }
    #expect(server.take())
    let grant = try #require(try server.grant(.fifo))
    #expect(server.counts.lent == 1)
    // A task becomes ready: the lent token is still in the fifo, so the scheduler takes it back.
    #expect(server.take())
    #expect(server.counts.lent == 0)
    server.end(grant, leftBehind: false)
  }

  @Test func theSchedulerWaitsUntilAToolGivesATokenBack() async throws {
    let server = Jobserver(jobs: 2, temporaryDirectories: [directory])
    defer { server.close() }
    #expect(server.take())
    let grant = try #require(try server.grant(.fifo))
    #expect(toolTakes(1, from: path(grant)) == 1)
    #expect(!server.take())
    let waiting = Task {
      await server.waitForSlot()
      return server.take()
    }
    toolGivesBack(1, to: path(grant))
    #expect(await waiting.value)
    server.end(grant, leftBehind: false)
  }

  /// A spare sits in each pool; a freed slot goes to the pool whose tools took theirs, not
  /// to one where the spare still waits.
  @Test func aFreedSlotGoesWhereToolsTookTheirSpare() throws {
    let server = Jobserver(jobs: 4, temporaryDirectories: [directory])
    defer { server.close() }
    #expect(server.take() && server.take())
    let first = try #require(try server.grant(.fifo))
    let second = try #require(try server.grant(.fifo))
    #expect(server.counts.free == 0 && server.counts.lent == 2)
    #expect(toolTakes(1, from: path(first)) == 1)
    server.give()
    server.lend()
    #expect(toolTakes(2, from: path(first)) == 1)
    #expect(toolTakes(2, from: path(second)) == 1)
    server.end(first, leftBehind: false)
    server.end(second, leftBehind: false)
  }

  /// A spare no tool takes (a task that runs `sleep`) moves, at the next look, to a pool that
  /// has none.
  @Test func aSpareNobodyTakesMovesOn() throws {
    let server = Jobserver(jobs: 3, temporaryDirectories: [directory])
    defer { server.close() }
    #expect(server.take() && server.take())
    let sleeper = try #require(try server.grant(.fifo))
    let builder = try #require(try server.grant(.fifo))
    #expect(server.counts.free == 0 && server.counts.lent == 1)
    server.lend()
    server.lend()
    #expect(toolTakes(1, from: path(builder)) == 1)
    #expect(toolTakes(1, from: path(sleeper)) == 0)
    server.end(sleeper, leftBehind: false)
    server.end(builder, leftBehind: false)
  }

  /// The fifo directory of a runner that was killed is removed by the next one that makes one.
  @Test func aKilledRunnersFifosGo() throws {
    let orphan = "\(directory)/runner-jobs-999999999-AbCdEf"
    try FileManager.default.createDirectory(atPath: orphan, withIntermediateDirectories: true)
    #expect(mkfifo("\(orphan)/1", 0o600) == 0)
    // A live runner's: it holds its directory locked.
    let live = "\(directory)/runner-jobs-\(getpid())-XyZxYz"
    try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
    let lock = open(live, O_RDONLY | O_DIRECTORY)
    defer { close(lock) }
    #expect(flock(lock, LOCK_EX) == 0)
    // Not a fifo directory of runner's, and a link: never followed.
    let other = "\(directory)/runner-jobs-999999999-linked"
    let target = "\(directory)/precious"
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    try "keep\n".write(toFile: "\(target)/1", atomically: false, encoding: .utf8)
    try FileManager.default.createSymbolicLink(atPath: other, withDestinationPath: target)
    let server = Jobserver(jobs: 2, temporaryDirectories: [directory])
    defer { server.close() }
    #expect(server.take())
    let grant = try #require(try server.grant(.fifo))
    #expect(!FileManager.default.fileExists(atPath: orphan))
    #expect(FileManager.default.fileExists(atPath: live))
    #expect(FileManager.default.fileExists(atPath: "\(target)/1"))
    server.end(grant, leftBehind: false)
  }

  @Test func thePipeFormGivesTheToolDescriptorsOfItsOwn() throws {
    let server = Jobserver(jobs: 2, temporaryDirectories: [directory])
    defer { server.close() }
    #expect(server.take())
    let grant = try #require(try server.grant(.pipe))
    guard case .descriptors(let read, let write) = grant.auth else {
      Issue.record("not descriptors: \(grant.auth)")
      return
    }
    #expect(grant.inherited == [read, write])
    // The tool's read end blocks (make relies on it); runner's own does not.
    #expect(fcntl(read, F_GETFL) & O_NONBLOCK == 0)
    var token: UInt8 = 0
    #expect(Glibc.read(read, &token, 1) == 1)
    #expect(Glibc.write(write, &token, 1) == 1)
    server.end(grant, leftBehind: false)
  }

  @Test func closingRemovesTheFifos() throws {
    let server = Jobserver(jobs: 2, temporaryDirectories: [directory])
    #expect(server.take())
    let grant = try #require(try server.grant(.fifo))
    let parent = (path(grant) as NSString).deletingLastPathComponent
    server.close()
    #expect(!FileManager.default.fileExists(atPath: parent))
  }
}
