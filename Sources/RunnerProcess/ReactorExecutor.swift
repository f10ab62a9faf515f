/// The task executor whose jobs run on the process reactor's thread.
package final class ReactorExecutor: TaskExecutor {
  private let inbox: ReactorInbox

  init(inbox: ReactorInbox) { self.inbox = inbox }

  package func enqueue(_ job: consuming ExecutorJob) {
    inbox.submit(.job(UnownedJob(job)))
  }
}
