import RunnerBasics
import RunnerEvents
import RunnerModel
import RunnerProcess
import Synchronization

/// The run's jobserver as shell tasks see it: the slots they share (`JobSlots`) and, per task,
/// the `MAKEFLAGS` its processes get for its `jobserver:` setting.
package final class RunJobserver: Sendable {
  package let slots: any JobSlots
  /// The style `jobserver: true` stands for, once the make on `PATH` was asked.
  private let automatic = Mutex<Task<JobGrant.Style?, Never>?>(nil)
  /// A jobserver that could not be set up was said.
  private let warned = Mutex(false)

  package init(slots: any JobSlots) {
    self.slots = slots
  }

  /// Sets `MAKEFLAGS` in `environment` for a task with `setting`: the jobserver added, or (for
  /// `false`) any jobserver it named taken out. Returns what the task holds until it ends
  /// (`slots.end`), and the descriptors its processes inherit.
  ///
  /// - Parameters:
  ///   - strict: the task is held to `sandbox: strict`, which lets it open no fifo of runner's:
  ///     it gets the descriptor form.
  ///   - runnerEnvironment: runner's, whose `PATH` finds the `make` that `true` asks.
  func prepare(
    _ setting: JobserverSetting, strict: Bool, environment: inout [String: String],
    runnerEnvironment: [String: String], processes: any ProcessRunning
  ) async -> JobGrant? {
    let style: JobGrant.Style
    switch setting {
    case .off:
      Self.removeJobserver(from: &environment)
      return nil
    case _ where strict: style = .pipe
    case .fifo: style = .fifo
    case .pipe: style = .pipe
    case .automatic: style = await automaticStyle(environment: runnerEnvironment, processes: processes)
    }
    let grant: JobGrant?
    do {
      grant = try slots.grant(style)
    } catch {
      // The task runs without one rather than fail: out of descriptors (its spawn waits for
      // some), said nowhere; anything else, said once.
      if !error.isExhaustion,
        warned.withLock({ (warned: inout Bool) -> Bool in
          defer { warned = true }
          return !warned
        })
      {
        Terminal.write("runner: warning: \(error.description); tasks run without it\n", to: 2)
      }
      Self.removeJobserver(from: &environment)
      return nil
    }
    guard let grant, !(strict && grant.path != nil) else {
      // make's own fifo, which a strict sandbox cannot open.
      Self.removeJobserver(from: &environment)
      return nil
    }
    environment["MAKEFLAGS"] = grant.makeFlags(environment["MAKEFLAGS"])
    return grant
  }

  /// The style `true` stands for: asked of `make --version` once a run (the first task asks,
  /// the others wait for its answer); asked again after an attempt that was stopped.
  private func automaticStyle(environment: [String: String], processes: any ProcessRunning) async -> JobGrant.Style {
    let asking = automatic.withLock { asked -> Task<JobGrant.Style?, Never> in
      if let asked { return asked }
      let task = Task { await Self.askMake(environment: environment, processes: processes) }
      asked = task
      return task
    }
    if let style = await asking.value { return style }
    automatic.withLock { if $0 == asking { $0 = nil } }
    return .fifo
  }

  /// nil when the question was stopped (the run is being cancelled): no answer to keep.
  private static func askMake(environment: [String: String], processes: any ProcessRunning) async -> JobGrant.Style? {
    let output = CollectedOutput()
    let spec = ProcessSpec(arguments: ["make", "--version"], environment: environment)
    guard let outcome = try? await processes.run(spec, sink: output, grace: .seconds(1)) else { return .fifo }
    if case .signaled = outcome { return nil }
    return outcome.isSuccess ? style(forMakeVersion: output.text) : .fifo
  }

  /// `MAKEFLAGS` (and make's older `MFLAGS`) without the jobserver they name, if any.
  static func removeJobserver(from environment: inout [String: String]) {
    for name in ["MAKEFLAGS", "MFLAGS"] { environment[name] = environment[name].flatMap(MakeFlags.removingJobserver) }
  }

  /// `pipe` for a GNU make older than 4.4 (it stops at a `fifo:` it cannot read), else `fifo`.
  static func style(forMakeVersion text: String) -> JobGrant.Style {
    let firstLine = text.split(separator: "\n").first ?? ""
    guard firstLine.hasPrefix("GNU Make ") else { return .fifo }
    let numbers = firstLine.dropFirst("GNU Make ".count).split(separator: ".").prefix(2).map {
      Int($0.prefix { $0.isNumber }) ?? 0
    }
    guard numbers.count == 2 else { return .fifo }
    return (numbers[0], numbers[1]) < (4, 4) ? .pipe : .fifo
  }
}
