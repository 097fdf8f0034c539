extension FerryStore {
    /// The account aggregate: add, link, update and remove accounts, their history, credentials and key rotation.
    public var accounts: AccountStore { AccountStore(client: client) }

    /// The schedule aggregate: add, pause, remove and fire schedules, and their runs.
    public var schedules: ScheduleStore { ScheduleStore(client: client) }

    /// The projection: verify it against the event log, compare and fold its counters, rebuild it.
    public var projection: ProjectionStore { ProjectionStore(client: client) }

    /// The archive: move finished jobs out to files, list archives, restore them.
    public var archive: ArchiveStore { ArchiveStore(client: client) }
}
