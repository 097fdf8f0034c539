/// The rescue window of in-process workers whose tests are not about rescue: a minute keeps their leases through
/// the multi-second stalls of a test process on a loaded machine (a lapsed lease fences a commit and a rescue runs
/// the job again, which these tests would see as a second upload or a rescued event).
enum OneMinuteLease {
    static let rescueAfter = Duration.seconds(60)
}
