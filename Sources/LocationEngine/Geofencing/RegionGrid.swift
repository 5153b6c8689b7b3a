/// The spatial index of the monitored regions: a hierarchy of latitude–longitude grids, one per
/// power-of-two cell size, each region filed at the level whose cells are at least as large as its box,
/// so it sits in at most 2 × 2 cells. A query visits the few cells its box covers at each occupied level.
///
/// Hand-written because neither swift-collections nor the server ecosystem has a spatial index; a grid
/// hierarchy rather than an R-tree because insertion and removal stay O(1) without rebalancing, and
/// regions, whose sizes cluster (depots, sites), occupy only a few levels. A query's cost is the
/// occupied levels times the cells it covers at each, plus the regions it finds — at most the regions
/// whose boxes lie within about two of their own sizes of the query; where a query would cover more
/// cells at a level than the level holds regions (a very inaccurate fix over small fences), that level
/// is scanned instead, which bounds the cost by the level's population.
///
/// Slots are the caller's (small integers it reuses); the grid only stores them.
struct RegionGrid: Sendable {
    /// Levels 0...17: cells of `180 / 2^(17 − level)` degrees, from about 150 m up to half a turn.
    static let levels = 18
    static let finestLevels = 17

    /// One filed region: its box, where it is listed in its level, and where in each of its cells (in
    /// the order ``forEachCell(of:level:_:)`` visits them), so that taking it out finds it in O(1)
    /// however many regions share its cells.
    struct Entry: Sendable {
        var bounds: GeoBounds
        var level: Int8
        var positionInLevel: Int32
        var positionsInCells: SIMD4<Int32> = .zero
    }

    /// The slots in each cell, by packed (level, latitude index, longitude index).
    private var cells: [UInt64: [Int32]] = [:]
    /// Every slot of each level, for scanning a level a query would cover with too many cells.
    private var members: [[Int32]] = Array(repeating: [], count: levels)
    /// By slot: the filed region, or `nil`.
    private var entries: [Entry?] = []
    /// By slot: the query that last reported it (to report each slot once per query).
    private var stamps: [UInt32] = []
    private var stamp: UInt32 = 0

    /// How many regions are filed.
    private(set) var count = 0

    /// The cell size of `level` in degrees.
    @inline(__always) static func cellSize(_ level: Int) -> Double { 180 / Double(1 << (finestLevels - level)) }

    /// The level a box of `bounds` is filed at: the first whose cells are larger than its largest side, with
    /// a margin for rounding — a box a hair narrower than a cell, whose edges' cell indices round apart, would
    /// otherwise cover three columns.
    static func level(for bounds: GeoBounds) -> Int {
        let side = bounds.largestSide * (1 + 1e-9)
        var level = 0
        while level < levels - 1 && cellSize(level) < side { level += 1 }
        return level
    }

    /// Files `slot` with its box.
    /// - Complexity: O(1) amortised (at most four cells).
    mutating func insert(_ slot: Int32, bounds: GeoBounds) {
        let index = Int(slot)
        if index >= entries.count {
            entries.append(contentsOf: repeatElement(nil, count: index + 1 - entries.count))
            stamps.append(contentsOf: repeatElement(0, count: index + 1 - stamps.count))
        }
        precondition(entries[index] == nil, "RegionGrid: slot \(slot) is filed twice")
        let level = Self.level(for: bounds)
        var entry = Entry(bounds: bounds, level: Int8(level), positionInLevel: Int32(members[level].count))
        members[level].append(slot)
        var cell = 0
        Self.forEachCell(of: bounds, level: level) { key in
            entry.positionsInCells[cell] = Int32(cells[key]?.count ?? 0)
            cells[key, default: []].append(slot)
            cell += 1
        }
        entries[index] = entry
        count += 1
    }

    /// Takes `slot` out: in each of its cells the last slot listed takes its place.
    /// - Complexity: O(1) (at most four cells).
    mutating func remove(_ slot: Int32) {
        let index = Int(slot)
        guard index < entries.count, let entry = entries[index] else { return }
        let level = Int(entry.level)
        var cell = 0
        Self.forEachCell(of: entry.bounds, level: level) { key in
            defer { cell += 1 }
            guard var list = cells.removeValue(forKey: key) else { return }
            let position = Int(entry.positionsInCells[cell])
            let moved = list.removeLast()
            if moved != slot {
                list[position] = moved
                relist(moved, inCell: key, level: level, at: position)
            }
            if !list.isEmpty { cells[key] = list }
        }
        let position = Int(entry.positionInLevel)
        let moved = members[level].removeLast()
        if moved != slot {
            members[level][position] = moved
            entries[Int(moved)]!.positionInLevel = Int32(position)
        }
        entries[index] = nil
        count -= 1
    }

    /// Records that `slot` now sits at `position` in the cell `key` of `level` (one of its own cells).
    private mutating func relist(_ slot: Int32, inCell key: UInt64, level: Int, at position: Int) {
        let index = Int(slot)
        guard let entry = entries[index] else { return }
        var cell = 0
        var found = -1
        Self.forEachCell(of: entry.bounds, level: level) { candidate in
            if candidate == key && found < 0 { found = cell }
            cell += 1
        }
        precondition(found >= 0, "RegionGrid: slot \(slot) is listed in a cell it does not cover")
        entries[index]!.positionsInCells[found] = Int32(position)
    }

    /// Calls `body` once for every filed slot whose box meets `query`.
    /// - Complexity: O(levels · cells covered + regions found), each level's share bounded by its population.
    mutating func forEach(intersecting query: GeoBounds, _ body: (Int32) -> Void) {
        stamp &+= 1
        if stamp == 0 {
            for i in stamps.indices { stamps[i] = 0 }
            stamp = 1
        }
        let current = stamp
        func visit(_ slot: Int32) {
            let index = Int(slot)
            guard stamps[index] != current else { return }
            stamps[index] = current
            if entries[index]!.bounds.intersects(query) { body(slot) }
        }
        for level in 0..<Self.levels where !members[level].isEmpty {
            let ranges = Self.cellRanges(of: query, level: level)
            // The cells a world-wide query covers at the finest level number about 3 × 10^10: past a 32-bit `Int`.
            let (covered, overflow) = ranges.rows.count.multipliedReportingOverflow(by: ranges.columns.count)
            if overflow || covered > members[level].count {
                for slot in members[level] { visit(slot) }
            } else {
                Self.forEachCell(ranges, level: level) { key in
                    if let list = cells[key] { for slot in list { visit(slot) } }
                }
            }
        }
    }

    /// The latitude rows and (unwrapped) longitude columns `bounds` covers at `level`.
    private static func cellRanges(of bounds: GeoBounds, level: Int) -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>) {
        let size = cellSize(level)
        let rowCount = Int((180 / size).rounded())
        let columnCount = 2 * rowCount
        let firstRow = min(rowCount - 1, max(0, Int(((bounds.minLatitude + 90) / size).rounded(.down))))
        let lastRow = min(rowCount - 1, max(firstRow, Int(((bounds.maxLatitude + 90) / size).rounded(.down))))
        if bounds.longitudeSpan >= 360 { return (firstRow...lastRow, 0...(columnCount - 1)) }
        let firstColumn = min(columnCount - 1, max(0, Int(((bounds.minLongitude + 180) / size).rounded(.down))))
        let lastColumn = max(firstColumn, Int(((bounds.minLongitude + bounds.longitudeSpan + 180) / size).rounded(.down)))
        return (firstRow...lastRow, firstColumn...min(lastColumn, firstColumn + columnCount - 1))
    }

    /// Calls `body` with the key of every cell a region's box `bounds` covers at its `level`: at most 2 × 2 (what
    /// ``Entry/positionsInCells`` holds; the level guarantees it, the bound keeps it so whatever the rounding).
    private static func forEachCell(of bounds: GeoBounds, level: Int, _ body: (UInt64) -> Void) {
        let (rows, columns) = cellRanges(of: bounds, level: level)
        let filed = (rows.lowerBound...min(rows.upperBound, rows.lowerBound + 1), columns.lowerBound...min(columns.upperBound, columns.lowerBound + 1))
        forEachCell(filed, level: level, body)
    }

    /// Calls `body` with the key of every cell in these ranges at `level`.
    private static func forEachCell(
        _ ranges: (rows: ClosedRange<Int>, columns: ClosedRange<Int>), level: Int, _ body: (UInt64) -> Void
    ) {
        let (rows, columns) = ranges
        let columnCount = 2 * Int((180 / cellSize(level)).rounded())
        for row in rows {
            for column in columns {
                body(UInt64(level) << 48 | UInt64(row) << 24 | UInt64(column % columnCount))
            }
        }
    }
}
