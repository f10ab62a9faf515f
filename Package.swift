// swift-tools-version:6.2
import PackageDescription

let package = Package(
  name: "runner",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "runner", targets: ["runner"]),
    .library(name: "RunnerKit", targets: ["RunnerKit"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    // The network: REAPI v2 over gRPC (issue 16).
    .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
    .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
    .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
    // Bazel's HTTP cache protocol.
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
  ],
  targets: [
    .executableTarget(
      name: "runner",
      dependencies: [
        "RunnerKit",
        "runner-trace",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // A static program remote execution sends to workers for `sources: auto` tasks: it runs a
    // command traced by the shim's tracer and writes what it saw (Sources/runner-trace). Static
    // so a worker needs nothing installed; linked by lld, which links glibc statically without
    // warnings.
    .executableTarget(
      name: "runner-trace",
      dependencies: ["CRunnerShim"],
      linkerSettings: [
        .unsafeFlags([
          "-static-executable", "-use-ld=lld", "-Xlinker", "--gc-sections", "-Xlinker", "--strip-all",
          "-Xlinker", "--no-warnings",
        ])
      ]
    ),
    // The layers, in the order data flows: each depends only on the ones above it.
    .target(name: "RunnerBasics"),
    .target(name: "RunnerModel", dependencies: ["RunnerBasics", "CYaml"]),
    .target(
      name: "RunnerCache",
      dependencies: ["RunnerModel", .product(name: "Crypto", package: "swift-crypto")]
    ),
    // Processes: the reactor, spawning, signals and the watchdog; the one importer of the C shim.
    .target(name: "RunnerProcess", dependencies: ["RunnerBasics", "CRunnerShim"]),
    .target(name: "RunnerEvents", dependencies: ["RunnerModel", "RunnerProcess"]),
    .target(
      name: "RunnerExecution",
      dependencies: ["RunnerCache", "RunnerRemoteAPI", "RunnerEvents", "RunnerProcess", "Imaging"]),
    // What the executor asks of the remote layer (RunnerRemote answers): the protocols and
    // their fault policy.
    .target(name: "RunnerRemoteAPI", dependencies: ["RunnerCache"]),
    .target(name: "RunnerReporting", dependencies: ["RunnerEvents", "RunnerProcess"]),
    .target(name: "RunnerRendering", dependencies: ["RunnerCache"]),
    // The façade: one entry point per command.
    .target(
      name: "RunnerKit",
      dependencies: [
        "RunnerExecution", "RunnerReporting", "RunnerRendering", "RunnerRemote", "RunnerImport",
        "RunnerLanguageServer",
      ],
      plugins: ["VersionStamp"]
    ),
    .plugin(name: "VersionStamp", capability: .buildTool()),
    // Beyond one machine: the REAPI v2 messages and clients (generated, see regenerate.sh), and
    // the remote layer the executor reaches through protocols.
    .target(
      name: "REAPI",
      dependencies: [
        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
        .product(name: "GRPCCore", package: "grpc-swift-2"),
        .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
      ],
      exclude: ["regenerate.sh"]
    ),
    .target(
      name: "RunnerRemote",
      dependencies: [
        "REAPI",
        "RunnerCache",
        "RunnerRemoteAPI",
        "Imaging",
        // Ed25519: signing and checking remote cache results.
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "GRPCCore", package: "grpc-swift-2"),
        .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]
    ),
    // `runner import`: a Taskfile, justfile or Makefile in runner's format.
    .target(name: "RunnerImport", dependencies: ["RunnerBasics", "RunnerModel"]),
    // `runner lsp`: the loader's diagnostics and the file's tasks for editors, over stdio.
    .target(name: "RunnerLanguageServer", dependencies: ["RunnerBasics", "RunnerModel"]),
    .target(name: "Imaging", dependencies: ["CPNG", "CJPEG"]),
    .systemLibrary(name: "CYaml", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
    .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
    .target(name: "CRunnerShim"),
    // What the test targets share: /proc scanning (plain system calls: see ProcScan.swift), a
    // test clock, and a file system in memory for the engine's decisions.
    .target(name: "TestSupport", dependencies: ["RunnerBasics", "RunnerCache"], path: "Tests/TestSupport"),
    // Tests mirror the layers; the façade's target also holds the reporting and rendering tests,
    // which share one scripted run.
    .testTarget(name: "RunnerModelTests", dependencies: ["RunnerModel"]),
    .testTarget(name: "RunnerImportTests", dependencies: ["RunnerImport", "RunnerModel"], exclude: ["Corpus"]),
    .testTarget(name: "RunnerLanguageServerTests", dependencies: ["RunnerLanguageServer", "RunnerBasics"]),
    .testTarget(name: "RunnerCacheTests", dependencies: ["RunnerCache", "TestSupport"]),
    .testTarget(
      name: "RunnerExecutionTests",
      dependencies: ["RunnerExecution", "RunnerEvents", "RunnerProcess", "Imaging", "TestSupport"]),
    .testTarget(name: "RunnerKitTests", dependencies: ["RunnerKit", "RunnerEvents", "RunnerProcess", "TestSupport"]),
    .testTarget(
      name: "RunnerRemoteTests",
      dependencies: ["RunnerRemote", "REAPI", "RunnerCache", "RunnerModel", "Imaging", "TestSupport"]),
    .testTarget(name: "ImagingTests", dependencies: ["Imaging"], resources: [.copy("Fixtures")]),
    .testTarget(name: "RunnerCLITests", dependencies: ["runner", "TestSupport"], exclude: ["Fixtures"]),
  ],
  swiftLanguageModes: [.v6]
)
