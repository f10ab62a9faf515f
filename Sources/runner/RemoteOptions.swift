import ArgumentParser
import RunnerKit

/// Options for the remote cache and executor (they override the task file's `remote:` section).
struct RemoteOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      "Share results through a remote cache: grpc://HOST:PORT[/INSTANCE] or grpcs:// (REAPI v2), "
        + "http(s)://HOST:PORT/PREFIX (Bazel's HTTP cache).",
      discussion: "Default: RUNNER_REMOTE_CACHE, else the task file's 'remote.cache'.", valueName: "url"))
  var remoteCache: String?

  @Option(
    help: ArgumentHelp(
      "Run tasks with sources on a REAPI v2 Execution service: grpc://HOST:PORT[/INSTANCE] or grpcs://.",
      discussion: "Also the remote cache unless --remote-cache names another. "
        + "Default: RUNNER_REMOTE_EXEC, else the task file's 'remote.exec'.", valueName: "url"))
  var remoteExec: String?

  @Option(
    help: ArgumentHelp(
      "The most tasks executing remotely at once, beside -j (default 32).", valueName: "n"))
  var remoteJobs: Int?

  @Option(
    help: ArgumentHelp(
      "Send a header with every remote call, e.g. 'Authorization: Bearer TOKEN' (repeatable).",
      discussion: "RUNNER_REMOTE_HEADERS adds one header a line, which keeps tokens out of command lines.",
      valueName: "header"))
  var remoteHeader: [String] = []

  @Option(
    help: ArgumentHelp("false: read from the remote cache, never store in it (default true).", valueName: "bool"))
  var remoteUpload: Bool?

  @Option(
    help: ArgumentHelp("A PEM file of the certificates a TLS server's must chain to.", valueName: "file"),
    completion: .file())
  var remoteCa: String?

  @Option(
    help: ArgumentHelp(
      "The deadline of each remote call (default 30s); the first fault turns the remote cache off for the run.",
      valueName: "duration"))
  var remoteTimeout: String?

  @Option(
    help: ArgumentHelp(
      "Spot-check the remote cache: run this share of the results it would restore here, and fail "
        + "a task whose outputs differ (e.g. 5 or 0.5%).",
      discussion: "Picked by task key: the same tasks each run until --verify-cache-seed changes.",
      valueName: "percent"))
  var verifyCache: String?

  @Option(
    help: ArgumentHelp(
      "Pick other tasks for --verify-cache (e.g. the CI run's number).", valueName: "text"))
  var verifyCacheSeed: String?

  func settings() -> RunOptions.Remote {
    var settings = RunOptions.Remote()
    settings.cache = remoteCache
    settings.execute = remoteExec
    settings.jobs = remoteJobs
    settings.headers = remoteHeader
    settings.upload = remoteUpload
    settings.certificateAuthority = remoteCa
    settings.timeout = remoteTimeout.flatMap(RunOptions.parseDuration)
    settings.verifyCache = verifyCache
    settings.verifyCacheSeed = verifyCacheSeed
    return settings
  }
}
