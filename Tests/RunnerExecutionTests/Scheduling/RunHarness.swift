import Foundation
import RunnerEvents
import Synchronization
import TestSupport
import Testing

@testable import RunnerBasics
@testable import RunnerExecution
@testable import RunnerModel
@testable import RunnerProcess

/// Records every event and output line of a run, for assertions on what happened.
final class RecordingObserver: RunObserver {
  struct Line: Sendable {
    var task: Int
    var stream: OutputStreamKind
    var bytes: [UInt8]
    var text: String { String(decoding: bytes, as: UTF8.self) }
  }

  private let events = Mutex<[RunEvent]>([])
  private let lines = Mutex<[Line]>([])
  private let byteCount = Mutex<Int>(0)
  /// Keep at most this many lines (large-output tests count bytes instead).
  let keepLines: Int

  init(keepLines: Int = 100_000) { self.keepLines = keepLines }

  func record(_ event: RunEvent) { events.withLock { $0.append(event) } }

  func output(task: Int, stream: OutputStreamKind, lines received: OutputLines, time: Duration) {
    byteCount.withLock { $0 += received.bytes.count }
    lines.withLock { lines in
      received.forEach { line in
        if lines.count < keepLines { lines.append(Line(task: task, stream: stream, bytes: Array(line))) }
      }
    }
  }

  var recorded: [RunEvent] { events.withLock { $0 } }
  var output: [Line] { lines.withLock { $0 } }
  var outputBytes: Int { byteCount.withLock { $0 } }

  /// (task, state) for every state change, in order.
  var transitions: [(Int, TaskState)] {
    recorded.compactMap { event in
      if case .state(let state, _, _) = event.kind, let task = event.task { return (task, state) }
      return nil
    }
  }

  /// The most tasks executing at the same moment.
  var peakConcurrency: Int {
    var executing = Set<Int>()
    var peak = 0
    for (task, state) in transitions {
      if state == .executing { executing.insert(task) } else if state.isFinal { executing.remove(task) }
      peak = max(peak, executing.count)
    }
    return peak
  }

  /// Tasks in the order they started executing (first attempts).
  var startOrder: [Int] {
    var seen = Set<Int>()
    return transitions.compactMap { $0.1 == .executing && seen.insert($0.0).inserted ? $0.0 : nil }
  }

  func finalState(of task: Int) -> TaskState? {
    transitions.last { $0.0 == task && $0.1.isFinal }?.1
  }
}

/// A task file in a fresh temporary directory, run through the real scheduler and processes.
struct RunHarness {
  let directory: URL
  let graph: TaskGraph

  init(_ yaml: String) throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("runner-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("tasks.yml").path
    try yaml.write(toFile: path, atomically: true, encoding: .utf8)
    graph = try TaskFileLoader().load(path: path)
  }

  func index(_ name: String) -> Int { graph.index(of: name)! }

  func run(
    _ targets: [String] = [], jobs: Int = 4, failFast: Bool = true, grace: Duration = .seconds(2),
    observer: RecordingObserver = RecordingObserver(), clock: any RunClock = SystemClock(),
    processes: (any ProcessRunning)? = nil
  ) async throws -> (RunSummary, RecordingObserver) {
    let selection = try GraphSelection(graph: graph, targetNames: targets, wholeFile: true)
    let scratch = directory.appendingPathComponent(".scratch")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    var settings = RunSettings(concurrency: jobs, failFast: failFast, grace: grace)
    settings.clock = clock
    let scheduler = Scheduler(
      selection: selection, settings: settings,
      observer: observer, scratchDirectory: scratch.path, baseEnvironment: ProcessInfo.processInfo.environment,
      factory: OperationFactory(processes: processes))
    let summary = await scheduler.run()
    return (summary, observer)
  }

  func file(_ name: String) -> String? {
    try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
  }
}

/// Processes whose command line contains `marker` (scanning /proc), zombies included.
func processes(containing marker: String) -> [Int32] {
  ProcScan.allPIDs().filter { pid in
    pid != getpid() && ProcScan.file("/proc/\(pid)/cmdline")?.contains(marker) == true
  }
}

/// Waits (bounded) until no process carries `marker`: killed processes take a moment to vanish.
func awaitNoProcesses(containing marker: String) async -> [Int32] {
  for _ in 0..<200 {
    let left = processes(containing: marker).filter { !isZombie($0) }
    if left.isEmpty { return [] }
    try? await Task.sleep(for: .milliseconds(20))
  }
  return processes(containing: marker).filter { !isZombie($0) }
}

func isZombie(_ pid: Int32) -> Bool {
  ProcScan.status(of: pid).map { $0.state == "Z" } ?? true
}

/// Stands in for the process reactor: records each process asked for and answers with the
/// next scripted outcome (then success), starting nothing.
final class ScriptedProcesses: ProcessRunning {
  private let state: Mutex<(outcomes: [ProcessOutcome], specs: [ProcessSpec])>

  init(_ outcomes: [ProcessOutcome]) {
    state = Mutex((outcomes, []))
  }

  var specs: [ProcessSpec] { state.withLock { $0.specs } }

  func run(_ spec: ProcessSpec, sink: some OutputLineSink, grace: Duration) async throws(SpawnError) -> ProcessOutcome {
    state.withLock { state in
      state.specs.append(spec)
      return state.outcomes.isEmpty ? .exited(0) : state.outcomes.removeFirst()
    }
  }

  /// It starts no process, so none is ever left behind.
  var leftoversSeen: Int { 0 }
}
