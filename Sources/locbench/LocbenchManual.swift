/// What locbench says of itself: the summary above `--help`'s options and the manual `--manual` prints.
enum LocbenchManual {
    /// What `locbench --help` says above the options: what a run is, a few examples, and where the
    /// manual is. Short, so that the options come first.
    static let summary = """
        Drives a LocationEngine with a deterministic workload (the same --seed gives the same operations) \
        over one synthetic GPS, runs a naive design beside it, checks every invariant on every run, and \
        prints what the engine buys. What a run does, prints and checks: locbench --manual (and the \
        LoadTestingWithLocbench article of the LocationEngine documentation).

        EXAMPLES
          locbench --requests 10000
          locbench --requests 10000 --json out.json --report out.html
          locbench --shape trickle --requests 2000
          locbench --geofences 1000 --report geofences.html
        """

    /// The manual `locbench --manual` prints: what a run does, what it prints and what it checks.
    static let text = """
        Drives a LocationEngine with a deterministic workload (the same --seed gives the same \
        operations) over one synthetic GPS, runs a naive design beside it on the same operations, \
        checks every invariant on every run, and prints what the engine buys.

        WORKLOAD
        --shape sets what the arrivals look like: default (per --arrival, below), trickle (one request \
        at a time: on periods of 0.5 s mean at --arrival-rate, default 2/s, and exponential gaps of 3 s \
        mean — a few times the break-even of a restart from tracking (0.56 s for the MediaTek), so \
        mostly gaps worth powering down for, each after a request's first fix; the mix \
        defaults to oneshot=1) or commute (a day of commuting, repeated: windows of activity at 07:30 \
        for 40 min, 08:40 for 5, 12:15 for 10, 17:30 for 45 and 21:00 for 5, each jittered by up to \
        ±10 min, at --arrival-rate, default 0.5/s; gaps of hours, so the receiver's ephemerides go stale \
        and its restarts are warm; about 3,100 operations a day).
        Operations arrive per --arrival. onoff (the default on the virtual clock): a Poisson process \
        switched on and off; on periods and idle gaps last exponentially distributed times (means \
        --on-period and --off-period; the run starts in an on period), and while on, operations arrive \
        at --arrival-rate per second (default N / 200 s, at least 10, so every size spans about 20 \
        minutes). steady: evenly spaced at --arrival-rate (default 1000/s). burst (the default on the \
        wall clock): all at time zero. Arrivals that would take more than about 230 days of virtual \
        time (20 million receiver steps; less above one fix a second), more than an hour on the wall \
        clock, or more than 100 million on periods to draw are refused before the run.
        Each operation is drawn from --mix: a one-shot (mostly coarse: city 25 %, neighborhood 30 %, \
        block 25 %, house 12 %, room 8 %, one in twenty a custom 5 m-2 km; timeouts uniform in \
        --timeouts, --no-timeout-fraction without), a subscription (nine in ten short, 5-20 s, standard, \
        passive, significant-change or heading, some with filters; one in ten a 60-120 s background \
        tracker), or a cancel or force-complete of a random earlier request, up to 5 s after it was made.

        CLOCK
        virtual: a manual clock jumps to the next operation, fix or engine deadline, so a run goes as \
        fast as the machine allows and its results do not depend on load; fix-to-delivery delay and \
        timeout lateness are measured on the virtual timeline, and the cost of the work is CPU time \
        per operation. wall: real time and real timers; the delay and lateness are real latencies; with \
        --timer-floor, beside them a timer floor: a bare thread sleeping to deadlines 1 ms apart through the runs \
        (clock_nanosleep, absolute deadlines), with how long after each it woke: the tail the operating \
        system gives a thread that sleeps until its deadline under the same load.

        OUTPUT
        - Power, for each design: source on-time, energy and time per mode, against an always-on source \
        (best mode throughout) and against an oracle computed from the same run. The synthetic source is \
        a receiver (--receiver: mtk, an MT3339 at 3.3 V, 25 mA acquiring, 20 mA tracking, 2 mA in \
        standby; ublox, a SAM-M8Q at 3 V, 32/29 mA, 9.5 mA in power save, 20 µA in backup; plain, which \
        takes no command) that meters its own current, and describes itself to the engine, whose \
        restart-aware rule (--power-down) stays on, stands by or goes off by the break-even of a restart. \
        Its energy is the meter's. Beside it, on the engine run's demand and charged with the receiver's \
        profile: the restart-aware oracle (knows every arrival, tracks exactly while some request waits, \
        in each gap stays on, stands by or goes off, pays each restart's acquisition and starts it one \
        time to first fix early, so it adds no delay), stop-immediately (off the moment no request \
        waits, as INTULocationManager; metered from a run of its own up to 100,000 operations), gpsd 60 s (best mode while a client watches and 60 s after; \
        gpsd sends no power command, so a real gpsd's receiver keeps tracking: charged as if the release \
        put it to sleep), always-on; the naive design is metered from its own run. For each: energy, \
        ratio to the oracle, restarts, and the first-fix delay after a restart, p50/p99 (the engine's and \
        the naive design's measured from start to first fix). For a real source (nothing metered) the \
        energy is a model: best 120 mW, high 90, medium 60, low 30, lowest 15, against an oracle that \
        runs the source exactly while some request waits and ignores restarts.
        - Outcomes by status, subscription updates, one-shots answered from the cache.
        - Wall time and CPU time per operation: medians (with min-max) of --repeat runs, the designs \
        interleaved so that a busy machine slows both alike.
        - Fix-to-delivery delay and timeout lateness: p50, p99, max.
        - Peak RSS (VmHWM) and the heap held at peak pending, per pending request from 1,000 pending on \
        (jemalloc's stats.allocated, or glibc's mallinfo2 without jemalloc; the report says which).
        - With --authorization: prompts, changes seen, deliveries checked coarse.
        --json writes every figure, --report one HTML page of charts. A progress line goes to standard \
        error for runs longer than a second, on a terminal and without --json.

        INVARIANTS
        Checked on every run. A violation by the engine exits non-zero, printing the requests' \
        histories; the naive design's are reported, not fatal.
        - Every request ended exactly once, or was cancelled (and the engine's cancel count agrees).
        - No subscription event after its end.
        - Every success meets its request's accuracy and recency; no subscription update fails its \
        accuracy filter or exceeds its maximum updates.
        - No timeout before its deadline; no force-completion nobody asked for.
        - On the virtual clock: no timeout although a satisfying fix arrived in time (for requests that \
        waited under full access throughout).
        - The source is off at the end.
        - With a metered receiver: the engine's own energy figure (counted from the states the receiver \
        confirmed) is within 2 % of the receiver's meter (the goal is 1 %; --receiver-fault makes the \
        receiver misbehave: refuses-power-down, refuses-power-save, answers-late, loses-waking-bytes).
        - With a fault that leaves the receiver controllable (answers-late, loses-waking-bytes): the \
        engine within 1.1× the restart-aware oracle.
        - With --authorization: nothing delivered under reduced accuracy is finer than the coarsening \
        grid, and no course is delivered then; 'accuracy reduced' ends requests only under reduced \
        accuracy, 'unauthorized' only while access is not granted.

        SEVERAL SOURCES
        --several-sources runs the mostly-coarse workload instead: --requests one-shots and subscriptions, \
        nine in ten city or neighbourhood one-shots or significant-change subscriptions and one in ten house \
        or room one-shots (timeouts 5-60 s), arriving on and off as the default shape's, on the virtual clock. \
        The engine serves them four times: over the metered synthetic GNSS (--receiver) with a coarse source \
        beside it (a locator reaching 1 km, a fix every 5 s, 400 m off and reported ±600 m, indoors too); over \
        the GNSS alone; with the sky dark for 10 minutes from 120 s; and with the GNSS unplugged a third of the \
        way through (a fatal error, and at every later start). It prints the GNSS's metered energy, the \
        engine's figure, the restart-aware oracle that runs the GNSS exactly while a request the coarse \
        source cannot serve waits (a loose bound here: the waits include the engine's own acquisition, which \
        the oracle pays again as its restart), the GNSS and coarse starts, and the outcomes. It fails when a \
        request did not end exactly once, the GNSS ran in a mode the coarse source serves, the engine's GNSS \
        figure is more than 2 % off the meter (while the receiver lives), the GNSS beside the coarse source \
        spent more than 1.1x the oracle, indoors a precise one-shot timed out with no fix or any request \
        failed, or the GNSS's failure failed a request the coarse source could serve.

        GEOFENCES
        --geofences N measures geofence monitoring instead of running the workload. For each trajectory \
        in --geofence-shapes (drive; walk; commute, a car on urban roads with stops of 1-10 minutes), \
        lasting --geofence-duration, it computes the ground truth from the synthetic receiver's \
        trajectory (its 1 s samples joined by straight lines), places N fences along it from --seed \
        (one across the path per kilometre of it, one touching it by 2-12 m per 3 km, the rest 300 m-5 km \
        away and at least 150 m from the path; one in four a polygon, the rest circles; none near the \
        start) and finds every true crossing of each boundary. The \
        engine monitors every fence (a dwell after 120 s) over the metered receiver on the virtual clock; \
        the naive design (the receiver always on at 1 Hz, every fence point-tested on every fix, no \
        hysteresis) runs over the same receiver. Each design's transitions are compared with the truth: \
        detected, missed, excepted (crossings of an excursion shallower than the margin, 2a + max(20 m, a) \
        at the receiver's median accuracy a while it tracks continuously, the same for every design, \
        which no confident fix can see), duplicate and false, and the \
        latency from the true crossing to the delivery, p50/p99/max, and from the decidable instant (the \
        truth first the margin past the boundary on the far side, the margin at the accuracy the receiver \
        gave at the time while tracking continuously; its p99 with the median's margin throughout beside \
        it). Energy is the meter's, against \
        always-on and against the reach oracle: the receiver tracking only while the true position is \
        within reach of a boundary (the margin plus a fix interval at the shape's top speed), waiting \
        between in the cheapest state, restarts paid. The engine's headline figures close the table. \
        Every monitor is force-completed at the end and must end exactly once, with nothing after its end, \
        and the source must end off; a violation exits non-zero. --json and --report (a map per \
        trajectory: the fences, the path coloured by the receiver's state, true crossings and the \
        transitions reported) as above. --geofence-responsiveness sets every monitor's latency budget; \
        --geofence-curve sweeps it (0 s-5 min) beside polling designs (a fix every 1 s-5 min, standby between, \
        the engine's decision rules) and prints energy against latency p99 from the decidable instant and \
        missed transitions, the Pareto front of the three marked (plotted in --report).

        EXAMPLES
          locbench --requests 10000
          locbench --requests 1000000 --arrival burst --mix oneshot=1
          locbench --requests 10000 --json out.json --report out.html
          locbench --shape trickle --requests 2000
          locbench --shape commute --requests 3100 --receiver ublox
          locbench --requests 100000 --clock wall --mix oneshot=1 --timeouts 100ms-1s
          locbench --requests 1000000 --submitters 2
          locbench --geofences 1000 --report geofences.html
          locbench --geofences 1000 --geofence-curve
          locbench --clock wall --source gpsd 127.0.0.1:2947
        """
}
