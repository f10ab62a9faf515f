import RunnerProcess
import Testing

@testable import RunnerExecution

@Suite struct MakeFlagsTests {
  @Test(arguments: [
    (" -j3 --jobserver-auth=3,4", MakeFlags.Auth.descriptors(read: 3, write: 4)),
    ("ks -j3 --jobserver-auth=fifo:/tmp/GMfifo1", .fifo("/tmp/GMfifo1")),
    ("-j --jobserver-fds=5,6 --jobserver-auth=5,6", .descriptors(read: 5, write: 6)),
    // The last one wins, as make and ninja read it.
    (" -j2 --jobserver-auth=fifo:/a --jobserver-auth=7,8", .descriptors(read: 7, write: 8)),
  ])
  func readsTheJobserverAsMakeWritesIt(flags: String, auth: MakeFlags.Auth) {
    #expect(MakeFlags.auth(in: flags) == auth)
  }

  @Test(arguments: [
    "", "k", " -j4", " -j3 --jobserver-auth=-1,-1",
    // -n: nothing is to run.
    "n -j3 --jobserver-auth=3,4",
    // What follows `--` sets variables.
    " -- X=--jobserver-auth=3,4",
  ])
  func noJobserver(flags: String) {
    #expect(MakeFlags.auth(in: flags) == nil)
  }

  @Test func theJobCount() {
    #expect(MakeFlags.jobs(in: " -j3 --jobserver-auth=3,4") == 3)
    #expect(MakeFlags.jobs(in: " -j --jobserver-auth=3,4") == nil)
    #expect(MakeFlags.jobs(in: "k") == nil)
  }

  @Test func addingKeepsTheTasksOwnFlagsAndVariables() {
    let fifo = MakeFlags.Auth.fifo("/tmp/r/1")
    #expect(MakeFlags.adding(jobs: 2, auth: fifo, to: nil) == " -j2 --jobserver-auth=fifo:/tmp/r/1")
    #expect(MakeFlags.adding(jobs: 2, auth: fifo, to: "k") == "k -j2 --jobserver-auth=fifo:/tmp/r/1")
    #expect(
      MakeFlags.adding(jobs: 4, auth: .descriptors(read: 9, write: 10), to: "ks -j8 --jobserver-auth=3,4 -- CC=gcc")
        == "ks -j4 --jobserver-auth=9,10 -- CC=gcc")
    #expect(
      MakeFlags.adding(jobs: 2, auth: fifo, to: " --warn-undefined-variables")
        == " --warn-undefined-variables -j2 --jobserver-auth=fifo:/tmp/r/1")
  }

  @Test func removingTakesOutOnlyAJobserver() {
    #expect(MakeFlags.removingJobserver(" -j3 --jobserver-auth=3,4") == nil)
    #expect(MakeFlags.removingJobserver("k -j3 --jobserver-auth=3,4") == "k")
    #expect(MakeFlags.removingJobserver(" -j3 --jobserver-auth=3,4 -- CC=gcc") == " -- CC=gcc")
    // A -j of the user's own, with no jobserver beside it, stays.
    #expect(MakeFlags.removingJobserver(" -j4") == " -j4")
  }

  @Test(arguments: [
    ("GNU Make 4.3\nBuilt for x86_64-pc-linux-gnu\n", JobGrant.Style.pipe),
    ("GNU Make 4.2.1\n", .pipe),
    ("GNU Make 3.81\n", .pipe),
    ("GNU Make 4.4.1\n", .fifo),
    ("GNU Make 5.0\n", .fifo),
    ("bmake 20240314\n", .fifo),
  ])
  func theStyleFollowsTheMakeOnThePath(version: String, style: JobGrant.Style) {
    #expect(RunJobserver.style(forMakeVersion: version) == style)
  }
}
