/// The fences by ID, with how many each client owns: a `POST /geofences` checks its client's share in O(1).
struct FenceTable: Sendable {
    private var byID: [UInt64: GeofenceRegistry.Fence] = [:]
    /// Fences per owner (`nil`: stored before clients existed); an owner with none has no entry.
    private var owned: [String?: Int] = [:]

    /// The fence `id`; setting it (or `nil`) keeps the owners' counts.
    subscript(id: UInt64) -> GeofenceRegistry.Fence? {
        get { byID[id] }
        set {
            if let old = byID[id] { owned[old.owner, default: 1] -= 1; if owned[old.owner] == 0 { owned[old.owner] = nil } }
            if let newValue { owned[newValue.owner, default: 0] += 1 }
            byID[id] = newValue
        }
    }

    /// Removes the fence `id`, returning it.
    mutating func removeValue(forKey id: UInt64) -> GeofenceRegistry.Fence? {
        let fence = self[id]
        self[id] = nil
        return fence
    }

    /// Every fence, in no order.
    var values: Dictionary<UInt64, GeofenceRegistry.Fence>.Values { byID.values }

    /// How many fences there are.
    var count: Int { byID.count }

    /// How many fences `owner` has.
    func count(ownedBy owner: String?) -> Int { owned[owner] ?? 0 }
}
