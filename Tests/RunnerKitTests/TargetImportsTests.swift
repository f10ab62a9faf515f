import Foundation
import Testing

/// What each target may import, as docs/architecture.md draws the targets: rules SwiftPM does
/// not keep (a target may import anything its dependencies depend on), kept here by reading
/// the sources' `import` lines.
@Suite struct TargetImportsTests {
  static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Sources")

  /// The modules a target's Swift files import (`import X`, `@testable import X`,
  /// `package import X`, `import struct X.Y`).
  static func imports(of target: String) throws -> Set<String> {
    let directory = sources.appendingPathComponent(target)
    let kinds: Set<Substring> = ["struct", "class", "enum", "func", "var", "let", "protocol", "typealias"]
    var found = Set<String>()
    guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
      return found
    }
    for case let url as URL in files where url.pathExtension == "swift" {
      let text = try String(contentsOf: url, encoding: .utf8)
      for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == ";" }) {
        let words = line.split(whereSeparator: \.isWhitespace)
        guard let at = words.firstIndex(of: "import"),
          words[..<at].allSatisfy({ $0.hasPrefix("@") || Self.modifiers.contains($0) })
        else { continue }
        var rest = words[(at + 1)...]
        if let first = rest.first, kinds.contains(first) { rest = rest.dropFirst() }
        if let module = rest.first?.split(separator: ".").first { found.insert(String(module)) }
      }
    }
    return found
  }

  static let modifiers: Set<Substring> = ["package", "public", "internal", "fileprivate", "private"]

  static var targets: [String] {
    get throws {
      try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { target in
        (try? imports(of: target).isEmpty == false) == true
      }
    }
  }

  @Test func theRulesSeeEveryTarget() throws {
    let targets = try Self.targets
    #expect(targets.count >= 12, "\(targets)")
    #expect(try Self.imports(of: "RunnerProcess").contains("CRunnerShim"))
  }

  /// The executable parses the command line and calls `Runner`: everything else is reached
  /// through RunnerKit's entry points.
  @Test func theExecutableImportsOnlyRunnerKit() throws {
    #expect(try Self.imports(of: "runner") == ["ArgumentParser", "Glibc", "RunnerKit"])
  }

  /// Nor may RunnerKit hand the executable another module through `@_exported`.
  @Test func runnerKitReExportsNothing() throws {
    let directory = Self.sources.appendingPathComponent("RunnerKit")
    let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }
    #expect(!files.isEmpty)
    for file in files {
      let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
      #expect(!text.contains("@_exported"), "\(file)")
    }
  }

  @Test func onlyTheProcessTargetImportsTheCShim() throws {
    for target in try Self.targets where target != "RunnerProcess" {
      #expect(try !Self.imports(of: target).contains("CRunnerShim"), "\(target)")
    }
  }

  /// An image reaches a task's key through `ImageDigesting`, not through the cache.
  @Test func theCacheDoesNotImportImaging() throws {
    #expect(try !Self.imports(of: "RunnerCache").contains("Imaging"))
  }

  /// The reporters read a run's events, not the engine that made them: the events and what they
  /// carry (states, failures, decisions, process outcomes) are a target below both.
  @Test func theReportersDoNotReachTheEngine() throws {
    let engine: Set<String> = ["RunnerCache", "RunnerExecution", "RunnerRemoteAPI", "RunnerRemote", "Imaging"]
    let reporting = try Self.imports(of: "RunnerReporting")
    let events = try Self.imports(of: "RunnerEvents")
    #expect(reporting.contains("RunnerEvents") && events.contains("RunnerModel"), "both targets read")
    #expect(reporting.isDisjoint(with: engine))
    #expect(events.isSubset(of: ["RunnerBasics", "RunnerModel", "RunnerProcess"]))
  }
}
