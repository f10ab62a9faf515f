/// How a run behaves, from the task file and the command line.
public struct RunSettings: Sendable {
  /// The most tasks executing at once.
  public var concurrency: Int
  /// Stop at the first failure (the default); false is `--keep-going`.
  public var failFast: Bool
  /// SIGTERM → SIGKILL grace for cancelled tasks.
  public var grace: Duration
  /// `--events FILE`.
  public var eventsPath: String?
  /// Up-to-date checks and the local cache (`--force`, `--no-cache`, `--no-wait`).
  public var caching: CacheSettings
  /// CI formats and pictures of the run (`--ci`, `--junit`, `--trace`, `--timeline`).
  public var reports = ReportSettings()

  public init(
    concurrency: Int, failFast: Bool = true, grace: Duration = .seconds(5), eventsPath: String? = nil,
    caching: CacheSettings = .disabled
  ) {
    self.concurrency = max(1, concurrency)
    self.failFast = failFast
    self.grace = grace
    self.eventsPath = eventsPath
    self.caching = caching
  }
}
