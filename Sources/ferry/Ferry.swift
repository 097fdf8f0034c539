import ArgumentParser
import FerryStore

@main
struct Ferry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "An event-sourced transfer queue on PostgreSQL: uploads, fetches, copies and syncs, worked by many workers.",
        discussion: """
            Every change to a job is an event appended to ferry.events; the current state of each job is \
            projected into ferry.jobs in the same transaction and read through the views ferry.job_status, \
            ferry.batch_status and ferry.queue_stats.

            Database: --database-url, else $FERRY_DATABASE_URL, else $DATABASE_URL, else libpq's PG* variables.

            Examples:
              ferry migrate
              ferry enqueue upload ~/Pictures/*.jpg --to file:///mnt/nas/ --batch trip
              ferry enqueue copy dropbox:photos:/Camera --recursive \\
                  --to s3:archive:bucket/camera/
              ferry enqueue sync ~/Documents --to s3:archive:bucket/docs/
              ferry enqueue --from jobs.jsonl
              ferry status --batch trip
              ferry cancel --batch trip
              ferry --generate-completion-script bash > ferry.bash   # or zsh, fish

            Exit codes (docs/cli.md#exit-codes):
              0    ok
              1    negative answer (a job failed, a check found differences)
              64   usage: a bad command line
              65   invalid input: nothing was written
              66   not found: no such job, batch, account, queue or schedule
              67   archived: the job or batch is in an archive file (ferry archive restore FILE)
              69   PostgreSQL unavailable: safe to retry
              70   internal error
              74   file I/O error
              75   try again: a wait timed out, or a concurrent enqueue won a key
              77   permission denied: the database role may not do this
              78   configuration: schema not migrated, secret key missing
              130  interrupted (SIGINT)
            """,
        version: FerryRelease.description,
        subcommands: [
            Migrate.self, Enqueue.self, Status.self, Events.self, Cancel.self, Retry.self, Discard.self, Wait.self, WorkerCommand.self, DevServerCommand.self, DashboardCommand.self,
            Projection.self, ArchiveCommand.self, AccountCommand.self, QueueCommand.self, ScheduleCommand.self,
            ListCommand.self, ListFilesCommand.self, SizeCommand.self, CheckCommand.self,
        ]
    )
}
