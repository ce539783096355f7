import Dispatch
import Foundation

/// `--progress` and `--stats-interval`: what a stream says while it runs, each at most as often
/// as its interval allows.
package struct StreamProgress {
    /// With `--progress`: at most four times a second, the counts so far and the rate, on
    /// stderr (over the previous line on a terminal, one line each otherwise).
    let showProgress: Bool
    /// `--stats FILE` and `--stats-interval SECONDS`: the stats written there every interval.
    let statsFile: (path: String, interval: Duration)?
    private var lastProgress = DispatchTime.now()
    private var lastStatsWrite = ContinuousClock.now
    /// Whether a progress line was drawn over (the summary then starts with `\r`).
    private(set) var shown = false

    /// How often the progress line may change.
    static let progressInterval: UInt64 = 250_000_000
    /// Whether the progress line overwrites itself: on a terminal only.
    static let overwrites = isatty(STDERR_FILENO) == 1

    init(showProgress: Bool, statsFile: (path: String, interval: Duration)?) {
        self.showProgress = showProgress
        self.statsFile = statsFile
    }

    /// Shows `line` (the counts and the rate) when its interval has passed.
    mutating func show(_ line: @autoclosure () -> String) {
        guard showProgress else { return }
        let now = DispatchTime.now()
        guard now.uptimeNanoseconds - lastProgress.uptimeNanoseconds >= Self.progressInterval else { return }
        lastProgress = now
        if Self.overwrites {
            shown = true
            FileHandle.standardError.write(Data("\r\(line())".utf8))
        } else {
            FileHandle.standardError.write(Data("\(line())\n".utf8))
        }
    }

    /// Whether the stats file is due (its interval has passed); the clock restarts when it is.
    mutating func statsDue() -> String? {
        guard let statsFile, ContinuousClock.now - lastStatsWrite >= statsFile.interval else { return nil }
        lastStatsWrite = ContinuousClock.now
        return statsFile.path
    }
}
