import FerryCore
import FerryTestSupport

extension InProcessFleet {
    /// `ferry schedule add NAME --every Ns -- KIND …` (``TestSchedules/add(_:_:everySeconds:template:overlap:)``).
    func addSchedule(_ name: String, everySeconds: Int64, template: JobRequest) async throws {
        try await TestSchedules.add(store, name, everySeconds: everySeconds, template: template)
    }

    /// `ferry schedule pause NAME`.
    func pauseSchedule(_ name: String) async throws {
        try await TestSchedules.pause(store, name)
    }
}
