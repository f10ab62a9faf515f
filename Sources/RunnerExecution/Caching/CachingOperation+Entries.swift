import Glibc
import Imaging
import RunnerBasics
import RunnerCache
import RunnerEvents
import RunnerModel
import RunnerProcess

/// A task's results into and out of the local cache: a sound entry restored, a fresh run
/// recorded and stored.
extension CachingOperation {
  /// Restores outputs, values and log from the cache entry for this fingerprint, if there is a sound one.
  ///
  /// - Parameter stored: the bytes the entry just added to the cache (one fetched from the
  ///   remote layer), which count towards its bound.
  func restore(
    _ fingerprint: Fingerprint, _ context: OperationContext, concluded: Concluded = .restored, stored: Int64 = 0,
    outcome: Outcome = .restored, because reason: RunReason? = nil
  ) -> (any OperationResult)? {
    let entry: CacheEntry
    do {
      guard let found = try store.cache.load(fingerprint.value) else { return nil }
      entry = found
    } catch {
      store.warn("discarding the cache entry of '\(context.task.name)': \(error); running it")
      return nil
    }
    var image: PixelImage?
    if let png = entry.image {
      guard let decoded = try? ImageCodec.decode(png, name: "cached image of '\(context.task.name)'") else {
        store.warn("discarding the cache entry of '\(context.task.name)': its image does not decode; running it")
        return nil
      }
      image = decoded
    } else if case .image = context.task.action {
      return nil
    }
    var outputs: [FileRecord] = []
    for file in entry.files {
      let full = FilePath.resolve(file.path, in: context.workingDirectory)
      do {
        let parent = FilePath.parent(of: full)
        try CacheFileSystem.makeDirectories(parent)
        // A runner killed while restoring here left its temporary file: it goes now (once a folder).
        store.cleanOnce(parent)
        try CacheFileSystem.restore(file, from: entry.path, to: full)
      } catch .corrupt(let path, let reason) {
        store.cache.discard(fingerprint.value)
        store.warn(
          "discarding the cache entry of '\(context.task.name)': \(CacheError.corrupt(path, reason: reason)); running it"
        )
        return nil
      } catch {
        store.warn("cannot restore '\(file.path)' of '\(context.task.name)' from the cache: \(error); running it")
        return nil
      }
      outputs.append(
        FileRecord(
          path: file.path, content: ContentDigest(hash: file.hash, size: file.size),
          executable: file.mode & 0o100 != 0, stamp: nil))
    }
    for chunk in entry.log {
      chunk.bytes.withUnsafeBytes { context.output.receive(lines: OutputLines($0), stream: chunk.stream) }
    }
    let values = Dictionary(entry.values, uniquingKeysWith: { $1 })
    let digest = Fingerprint.outputDigest(
      values: values, files: outputs, pixels: image.map(Fingerprint.pixelDigest))
    keep(
      decided(
        TaskRecord(
          fingerprint: fingerprint.value, operation: fingerprint.operation, directory: fingerprint.directory,
          environment: fingerprint.environment, dependencies: fingerprint.dependencies, sources: fingerprint.sources,
          outputs: outputs, values: entry.values, outputDigest: digest, walk: fingerprint.walk,
          discovered: fingerprint.discovered),
        fingerprint, outcome, because: reason),
      context, storedInCache: stored)
    return CachedResult.make(
      outputs: values, image: image, fingerprint: standIn(fingerprint, context), outputDigest: digest,
      concluded: concluded)
  }

  /// Records a fresh run and stores it in the cache.
  func record(
    _ result: any OperationResult, _ fingerprint: Fingerprint, log: [CacheEntry.LogChunk]?, _ context: OperationContext,
    because reason: RunReason?
  ) -> any OperationResult {
    let task = context.task
    let values = (result as? any OutputProviding)?.outputs ?? [:]
    let image = (result as? any ImageProviding)?.image
    let paths = SourceGlob.expand(Fingerprint.outputPatterns(of: task), in: context.workingDirectory)
    var entry = CacheEntry()
    var cacheable = store.settings.useCache && log != nil
    // Outputs that go into the entry are hashed as they are stored: read once.
    var contents: [String] = []
    var stamps: [CacheFileSystem.Stamp?] = []
    let judge = store.disk.judge()
    for path in paths where cacheable {
      let full = FilePath.resolve(path, in: context.workingDirectory)
      guard let status = store.disk.files.status(full, follow: true), status.isRegular else {
        cacheable = false
        break
      }
      entry.files.append(CacheEntry.File(path: path, mode: status.mode & 0o7777, size: status.stamp.size, hash: ""))
      contents.append(full)
      stamps.append(judge.stamp(status.stamp))
    }
    let sortedValues = values.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
    if cacheable {
      entry.values = sortedValues
      entry.log = log ?? []
      if let image {
        do {
          entry.image = try ImageCodec.encodePNG(image, fast: true)
        } catch {
          cacheable = false
        }
      }
    }
    var storedBytes: Int64 = 0
    var outputs: [FileRecord] = []
    if cacheable {
      do {
        let stored = try store.cache.store(entry, contents: contents, for: fingerprint.value)
        storedBytes = stored.size
        outputs = zip(stored.files, stamps).map { file, stamp in
          FileRecord(
            path: file.path, content: ContentDigest(hash: file.hash, size: file.size),
            executable: file.mode & 0o100 != 0, stamp: stamp)
        }
      } catch {
        store.warn("cannot store '\(task.name)' in the cache: \(error)")
        cacheable = false
      }
    }
    if !cacheable {
      outputs = Fingerprint.hashFiles(paths, in: context.workingDirectory, previous: [], disk: store.disk)
    }
    let digest = Fingerprint.outputDigest(values: values, files: outputs, pixels: image.map(Fingerprint.pixelDigest))
    keep(
      decided(
        TaskRecord(
          fingerprint: fingerprint.value, operation: fingerprint.operation, directory: fingerprint.directory,
          environment: fingerprint.environment, dependencies: fingerprint.dependencies, sources: fingerprint.sources,
          outputs: outputs, values: sortedValues, outputDigest: digest, walk: fingerprint.walk,
          discovered: fingerprint.discovered),
        fingerprint, .ran, because: reason),
      context, storedInCache: storedBytes)
    return CachedResult.make(
      outputs: values, image: image, fingerprint: standIn(fingerprint, context), outputDigest: digest, concluded: nil)
  }
}
