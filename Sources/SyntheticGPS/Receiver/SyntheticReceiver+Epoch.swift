import LocationEngine

extension SyntheticReceiver {
    /// Produces the next epoch and schedules the one after; `nil` when the receiver is off.
    ///
    /// - Complexity: amortised O(1) (the trajectory integrates in steps of at most 1 s; the sky is
    ///   recomputed every 10 s of scenario time); after the receiver was off, O(n) for the n epochs the
    ///   error model steps through.
    public mutating func nextEpoch() -> SyntheticEpoch? {
        guard let mode else { return nil }
        let index = nextIndex
        let elapsed = Double(index) * scenario.fixInterval
        lastIndex = index
        nextIndex = index + 1
        trajectory.advance(to: elapsed)
        let truth = trajectory.state
        var epoch = SyntheticEpoch(
            elapsed: elapsed, unixTime: scenario.startTime + elapsed, mode: mode, fix: nil, dop: nil,
            satellites: [], satellitesUsed: 0, geoidSeparation: scenario.geoidSeparation, truth: truth
        )
        let profile = PowerModeProfile.standard(mode)
        if profile.usesSatellites {
            satelliteSolution(profile, into: &epoch)
        } else if elapsed >= networkReadyAt {
            networkErrors.advance(to: elapsed)
            let sigma = profile.networkSigma
            let (east, north) = networkErrors.horizontal(sigma: sigma * scenario.fixErrorScale)
            var latitude = truth.latitude, longitude = truth.longitude
            scale.offset(latitude: &latitude, longitude: &longitude, east: east, north: north)
            epoch.fix = SyntheticFix(
                latitude: latitude, longitude: longitude, altitude: nil,
                horizontalAccuracy: ErrorModel.confidenceScale * sigma, verticalAccuracy: nil, speed: nil, course: nil
            )
        }
        // A duty-cycled mode's run window comes first (a MediaTek's periodic mode, a u-blox's ON/OFF
        // operation): the receiver searches at the grid's rate until it has a fix, and only then sleeps
        // through its mode's interval.
        if epoch.fix != nil { nextIndex = index + stride(for: mode) }
        return epoch
    }

    private mutating func satelliteSolution(_ profile: PowerModeProfile, into epoch: inout SyntheticEpoch) {
        let elapsed = epoch.elapsed
        let truth = epoch.truth
        if scenario.outages.isBlocked(at: elapsed) {
            if blockedSince == nil {
                blockedSince = elapsed
                sky.clear()
            }
            return
        }
        if let since = blockedSince {
            // Out of the tunnel: ephemerides are still valid, so reacquisition is a hot start at worst,
            // and the first solutions are rougher than steady state.
            blockedSince = nil
            let long = elapsed - since >= 30
            gnssReadyAt = max(gnssReadyAt, elapsed + (long ? random.uniform(2...5) : random.uniform(0.5...1.5)))
            if hadFix {
                convergenceStart = gnssReadyAt
                convergenceFactor = long ? 2 : 1.3
                convergenceTime = 10
            }
        }
        sky.update(
            elapsed: elapsed, unixTime: epoch.unixTime, latitude: truth.latitude, longitude: truth.longitude,
            height: truth.altitude + scenario.geoidSeparation
        )
        epoch.satellites = sky.satellites
        guard elapsed >= gnssReadyAt, let dop = sky.dop else {
            // Tracking but not yet solving: nothing is "used".
            if epoch.satellites.contains(where: \.used) {
                for index in epoch.satellites.indices { epoch.satellites[index].used = false }
            }
            return
        }
        hadFix = true
        gnssErrors.advance(to: elapsed)
        let age = elapsed - convergenceStart
        let convergence = age < 20 * convergenceTime
            ? 1 + (convergenceFactor - 1) * Math.exp(-max(0, age) / convergenceTime) : 1
        let sigma = profile.rangeError * dop.horizontal / 2.0.squareRoot() * convergence
            * gnssErrors.multipathFactor(at: elapsed)
        let sigmaVertical = profile.rangeError * dop.vertical * convergence
        let errorScale = scenario.fixErrorScale
        let (east, north) = gnssErrors.horizontal(sigma: sigma * errorScale)
        var latitude = truth.latitude, longitude = truth.longitude
        scale.offset(latitude: &latitude, longitude: &longitude, east: east, north: north)
        let velocity = trajectory.velocity
        let velocityError = gnssErrors.velocity(sigma: profile.velocitySigma * dop.horizontal * convergence * errorScale)
        let velocityEast = velocity.east + velocityError.east
        let velocityNorth = velocity.north + velocityError.north
        epoch.dop = dop
        epoch.satellitesUsed = sky.usedCount
        epoch.fix = SyntheticFix(
            latitude: latitude, longitude: longitude,
            altitude: truth.altitude + gnssErrors.vertical(sigma: sigmaVertical * errorScale),
            horizontalAccuracy: ErrorModel.confidenceScale * sigma, verticalAccuracy: sigmaVertical,
            speed: (velocityEast * velocityEast + velocityNorth * velocityNorth).squareRoot(),
            course: Math.normalizedDegrees(Math.atan2(velocityEast, velocityNorth) * Math.degrees)
        )
    }
}
