import ArgumentParser
import FerryStore

@main
struct Ferry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ferry",
        abstract: "An event-sourced transfer queue on PostgreSQL: uploads and fetches, worked by many workers.",
        discussion: """
            Every change to a job is an event appended to ferry.events; the current state of each job is \
            projected into ferry.jobs in the same transaction and read through the views ferry.job_status, \
            ferry.batch_status and ferry.queue_stats.

            Database: --database-url, else $FERRY_DATABASE_URL, else $DATABASE_URL, else libpq's PG* variables.

            Examples:
              ferry migrate
              ferry enqueue upload ~/Pictures/*.jpg --to file:///mnt/nas/ --batch trip
              ferry enqueue --from jobs.jsonl
              ferry status --batch trip
              ferry cancel --batch trip

            Exit codes: 0 ok, 1 negative answer, 64 usage, 65 invalid input, 66 not found,
            69 database unavailable, 70 internal error, 74 file I/O error, 77 permission denied,
            78 schema not migrated.
            """,
        version: FerryRelease.description,
        subcommands: [
            Migrate.self, Enqueue.self, Status.self, Events.self, Cancel.self, Retry.self, Wait.self, WorkerCommand.self, DevServerCommand.self, DashboardCommand.self,
            Projection.self, ArchiveCommand.self, AccountCommand.self, QueueCommand.self, ScheduleCommand.self,
        ]
    )
}
