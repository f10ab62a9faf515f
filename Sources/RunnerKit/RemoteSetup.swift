import RunnerBasics
import RunnerCache
import RunnerModel
import RunnerRemote
import RunnerRemoteAPI

/// The remote cache and executor of a run, from the command line, `RUNNER_REMOTE_CACHE` /
/// `RUNNER_REMOTE_EXEC` / `RUNNER_REMOTE_HEADERS` and the task file's `remote:` section, in
/// that order. An executor is the cache too unless another cache is named.
enum RemoteSetup {
  static let defaultTimeout = Duration.seconds(30)
  static let defaultJobs = 32

  struct Problem: Error {
    var text: String
  }

  typealias Sessions = RemoteSessions

  /// The sessions (none when no server is named); a problem (exit 2) when the settings are wrong.
  static func sessions(_ options: RunOptions.Remote, file: TaskFile, environment: [String: String]) -> Result<
    Sessions, Problem
  > {
    let written = file.remote
    let named = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    let execAddress = options.execute ?? named("RUNNER_REMOTE_EXEC")
    let execText = executorAddress(options, file: file, environment: environment)
    let execPlace = execAddress == nil ? written?.executeLocation.map { "\($0): " } ?? "" : ""
    let cacheAddress = options.cache ?? named("RUNNER_REMOTE_CACHE")
    var cacheText = cacheAddress ?? written?.cache
    var cachePlace = cacheAddress == nil ? written.map { "\($0.location): " } ?? "" : ""
    if cacheText == nil, let execText {
      cacheText = execText
      cachePlace = execPlace
    }
    var spotCheck: CacheSpotCheck?
    if let text = options.verifyCache {
      guard let parsed = CacheSpotCheck(percent: text, seed: options.verifyCacheSeed ?? "") else {
        return .failure(
          Problem(
            text: "--verify-cache: '\(text)' is not a share from 0 to 100 percent, to two decimals at most "
              + "(e.g. 5 or 0.5%)"))
      }
      spotCheck = parsed.basisPoints > 0 ? parsed : nil
    } else if options.verifyCacheSeed != nil {
      return .failure(Problem(text: "--verify-cache-seed picks tasks for --verify-cache, which is not given"))
    }
    guard let cacheText else {
      if spotCheck != nil {
        return .failure(
          Problem(text: "--verify-cache: no remote cache is named (--remote-cache, RUNNER_REMOTE_CACHE, remote.cache)"))
      }
      return .success(Sessions())
    }
    let headers: [(name: String, value: String)]
    switch self.headers(options, environment: environment) {
    case .success(let found): headers = found
    case .failure(let problem): return .failure(problem)
    }
    var certificates = options.certificateAuthority
    if certificates == nil, let ca = written?.certificateAuthority {
      certificates = FilePath.resolve(ca, in: file.directory)
    }
    let timeout = options.timeout ?? written?.timeout ?? defaultTimeout
    let signing: CacheSigningKey?
    let trust: CacheTrust?
    switch keys(file: file, environment: environment) {
    case .success(let found): (signing, trust) = found
    case .failure(let problem): return .failure(problem)
    }
    var sessions = Sessions()
    do {
      let endpoint = try RemoteEndpoint(parsing: cacheText)
      PrintMask.hide(SecretMask(values: endpoint.secrets))
      let cache = try RemoteActionCache.connect(
        endpoint, headers: headers, trustRoots: certificates, timeout: timeout, signing: signing, trust: trust)
      // A reader that trusts keys but holds none stores nothing: no reader that trusts could
      // restore it, and it could replace a signed result. Nor does a writer whose key the same
      // list does not trust (a key rotated in before the readers trust it).
      var unsigned = trust != nil && signing == nil
      if let signing, let trust, !trust.trusts(signing) {
        unsigned = true
        Terminal.write(
          "warning: RUNNER_REMOTE_SIGNING_KEY: key \(signing.id) is not among the trusted keys ("
            + trust.ids.joined(separator: ", ") + "): nothing is stored in the remote cache\n", to: 2)
      }
      sessions.cache = RemoteCacheSession(
        cache, uploads: !unsigned && (options.upload ?? written?.upload ?? true), spotCheck: spotCheck)
    } catch {
      return .failure(Problem(text: "\(cachePlace)remote cache: \(error)"))
    }
    guard let execText else { return .success(sessions) }
    do {
      let endpoint = try RemoteEndpoint(parsing: execText)
      PrintMask.hide(SecretMask(values: endpoint.secrets))
      let executor = try RemoteActionExecutor.connect(
        endpoint, headers: headers, trustRoots: certificates, timeout: timeout)
      sessions.execution = RemoteExecutionSession(executor, jobs: options.jobs ?? written?.jobs ?? defaultJobs)
    } catch {
      return .failure(Problem(text: "\(execPlace)remote execution: \(error)"))
    }
    return .success(sessions)
  }

  /// The key results are signed with (`RUNNER_REMOTE_SIGNING_KEY`, a path: the key itself is
  /// never on the command line) and the keys a restored result must be signed by
  /// (`RUNNER_REMOTE_TRUST`, paths separated by `:`, else `remote.trust`, relative to the file).
  static func keys(file: TaskFile, environment: [String: String]) -> Result<
    (signing: CacheSigningKey?, trust: CacheTrust?), Problem
  > {
    let named = { (name: String) in environment[name].flatMap { $0.isEmpty ? nil : $0 } }
    var signing: CacheSigningKey?
    if let path = named("RUNNER_REMOTE_SIGNING_KEY") {
      do {
        let pem = try readKey(path)
        // Should a task print the key file, its text is masked as a secret's value is.
        let lines = String(decoding: pem, as: UTF8.self).split(whereSeparator: \.isNewline)
        PrintMask.hide(SecretMask(values: lines.filter { !$0.hasPrefix("-----") && $0.count >= 8 }.map(String.init)))
        signing = try CacheSigningKey(pem: pem, path: path)
      } catch {
        return .failure(Problem(text: "RUNNER_REMOTE_SIGNING_KEY: \(error)"))
      }
    }
    let paths: [String]
    let place: String
    if let list = named("RUNNER_REMOTE_TRUST") {
      // Relative to the working directory, as any path in the environment.
      paths = list.split(separator: ":").map(String.init)
      place = "RUNNER_REMOTE_TRUST: "
    } else if let written = file.remote?.trust {
      paths = written.map { FilePath.resolve($0, in: file.directory) }
      place = (file.remote?.trustLocation.map { "\($0): " } ?? "") + "remote.trust: "
    } else {
      // A writer restores only its own results: it never signs one built on a result it
      // cannot vouch for.
      return .success((signing, signing.map(CacheTrust.init(signing:))))
    }
    do {
      var files: [(path: String, pem: [UInt8])] = []
      for path in paths { files.append((path, try readKey(path))) }
      return .success((signing, try CacheTrust(files)))
    } catch {
      return .failure(Problem(text: "\(place)\(error)"))
    }
  }

  /// A key file's bytes; its error names it as a key, not a task file.
  static func readKey(_ path: String) throws(CacheKeyError) -> [UInt8] {
    do {
      return try FileReader.read(path)
    } catch {
      switch error {
      case .fileNotFound: throw CacheKeyError(description: "cannot find the key file \(path)")
      case .isDirectory: throw CacheKeyError(description: "the key file \(path) is a directory")
      case .unreadable(_, let reason): throw CacheKeyError(description: "cannot read the key file \(path): \(reason)")
      default: throw CacheKeyError(description: "cannot read the key file \(path): \(error)")
      }
    }
  }

  /// The executor's address as named (nil: none), for the plan.
  static func executorAddress(_ options: RunOptions.Remote, file: TaskFile, environment: [String: String]) -> String? {
    options.execute ?? environment["RUNNER_REMOTE_EXEC"].flatMap { $0.isEmpty ? nil : $0 } ?? file.remote?.execute
  }

  /// `RUNNER_REMOTE_HEADERS` (one a line), then `--remote-header`, each `Name: value`.
  static func headers(_ options: RunOptions.Remote, environment: [String: String]) -> Result<
    [(name: String, value: String)], Problem
  > {
    var headers: [(name: String, value: String)] = []
    // Lines end in LF or CRLF (a secret store's file often has the latter): "\r\n" is one
    // Character, so the split is on the scalars.
    let lines = (environment["RUNNER_REMOTE_HEADERS"] ?? "").unicodeScalars
      .split { $0 == "\n" || $0 == "\r" }.map { String($0) }
    for line in lines + options.headers where !line.allSatisfy(\.isWhitespace) {
      guard let colon = line.firstIndex(of: ":"), !line[..<colon].isEmpty, !line[..<colon].contains(" ") else {
        // The line may hold a secret: none of it is said.
        return .failure(Problem(text: "a remote header must be 'Name: value' (a name, a colon, the value)"))
      }
      let name = String(line[..<colon])
      let value = String(line[line.index(after: colon)...]).trimmed()
      // Values are secrets (tokens): masked wherever runner prints, whatever prints them.
      PrintMask.hide(SecretMask(values: [value]))
      guard name.unicodeScalars.allSatisfy(Self.isTokenCharacter) else {
        return .failure(Problem(text: "the remote header name '\(name)' holds a character a header name cannot"))
      }
      guard !value.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || $0.value == 0x7F }) else {
        return .failure(
          Problem(text: "the value of the remote header '\(name)' holds a control character (a line break?)"))
      }
      headers.append((name, value))
    }
    return .success(headers)
  }
}

extension RemoteSetup {
  /// RFC 9110's `tchar`: what a header's name may hold.
  static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
    scalar.isASCII
      && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
        || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
  }
}

extension String {
  fileprivate func trimmed() -> String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
  }
}
