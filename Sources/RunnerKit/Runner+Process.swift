import RunnerProcess

extension Runner {
  /// Call once at start, before any thread: bounds the allocator's arenas for a process of many
  /// threads, and raises the soft limit on open files to the hard one.
  public static func prepareProcess() {
    Kernel.tuneAllocator()
    Kernel.raiseDescriptorLimit()
  }
}
