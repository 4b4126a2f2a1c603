// StrataSync over loopback HTTP, measured:
//   swift run -c release --package-path Examples/TodoService strata-sync-bench [SECONDS]
//   swift run -c release --package-path Examples/TodoService strata-sync-bench [SECONDS] \
//       --hub-binary PATH/strata-sync-hub --postgres postgres://USER@127.0.0.1:PORT/DB
// - Latency: 8 replicas each write 10 transactions a second through a running SyncLoop
//   (`startSyncing`, long-poll pulls); a 9th replica observes the table. For every row, the time
//   from just before its write to the observer's delivery of it: p50 and p99.
// - Throughput: the 8 replicas write as fast as they can; changes the hub applied per second.
// - The hub's own apply rate: single-row entries pushed in process (no HTTP), in pushes of 100.
//   swift run -c release --package-path Examples/TodoService strata-sync-bench polls [SECONDS] \
//       --hub-binary PATH/strata-sync-hub [--idle 10000] [--waiting 1000] [--writers 10] [--stream]
// - Long polls by the thousand: idle long polls on one hub process (its memory per poll, and the
//   time one write takes to answer them all), then waiting pollers while writers push a row every
//   100 ms each: commit to visible, p50 and p99, from the push sent and from its answer. With
//   `--stream`, each poller holds one pull stream instead (one frame per version, no new request).
//   swift run -c release --package-path Examples/TodoService strata-sync-bench scale [SECONDS] \
//       --hub-binary PATH/strata-sync-hub --postgres URL
// - Scale out: two spaces, 8 pushers each sending made single-row entries in pushes of 100, on
//   one hub process and then on two (each space's pushers on its own), on PostgreSQL and on a
//   SQLite folder: changes/s per space and the CPU the hubs, PostgreSQL and the load tool used.
//   swift run -c release --package-path Examples/TodoService strata-sync-bench apply --postgres URL [--count 5000]
// - The PostgreSQL store's apply in process, beside its floor, alone.
// Without options the hub runs in this process on its SQLite folder. With `--hub-binary` and
// `--postgres`, the same work runs against `strata-sync-hub` processes: one on a SQLite folder,
// one on PostgreSQL, three on the same PostgreSQL (the writers spread across them, the observer on
// the first, so a change reaches it through another process's commit and LISTEN/NOTIFY); then the
// PostgreSQL store's apply beside its floor, a plain multi-row INSERT of the same rows into a
// table of the same definition.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Strata
import StrataSync
import StrataSyncHub

#if !canImport(Darwin)
let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let hubBinary = option("--hub-binary")
let postgresURL = option("--postgres")
let polls = arguments.first == "polls"
let scale = arguments.first == "scale"
let applyOnly = arguments.first == "apply"
let positional = polls || scale || applyOnly ? Array(arguments.dropFirst()) : arguments
let seconds = positional.first.flatMap(Double.init) ?? 10 // the options come after it
let bench = try SyncBench(seconds: seconds)
defer { bench.removeFolder() }

if polls {
    guard let hubBinary else {
        say("polls needs --hub-binary PATH/strata-sync-hub")
        exit(64)
    }
    let idle = option("--idle").flatMap(Int.init) ?? 10_000
    let waiting = option("--waiting").flatMap(Int.init) ?? 1_000
    let writers = option("--writers").flatMap(Int.init) ?? 10
    let streams = arguments.contains("--stream")
    let result = try await bench.pollLoad(hubBinary: hubBinary, idle: idle, waiting: waiting, writers: writers, streams: streams)
    let what = streams ? "pull streams" : "long polls"
    print("| measure (\(what)) | value |")
    print("|---|---:|")
    print("| idle \(what) on one hub process (open-file limit \(result.openFileLimit)) | \(result.idlePolls) |")
    print("| the hub's resident memory, before and with them waiting | \(result.hubKiBBefore / 1024) MiB, \(result.hubKiBWaiting / 1024) MiB |")
    print("| memory per waiting poll | \(format(result.kiBPerPoll)) KiB |")
    print("| one write answers every idle poll in | \(format(result.wakeAllMilliseconds)) ms |")
    print("| commit to visible, \(result.waiting) waiting, \(result.writers) writers x 10/s: p50 from the push sent | \(format(result.fromSent.p50)) ms |")
    print("| p99 from the push sent | \(format(result.fromSent.p99)) ms |")
    print("| p50 from the push answered (its commit) | \(format(result.fromAnswered.p50)) ms |")
    print("| p99 from the push answered | \(format(result.fromAnswered.p99)) ms |")
    print("| writes, deliveries to pollers | \(result.writes), \(result.deliveries) |")
    let perDelivery = result.hubCPUSeconds * 1_000_000 / Double(max(result.deliveries, 1))
    print("| hub CPU while they wrote, per delivery | \(format(result.hubCPUSeconds)) s, \(format(perDelivery)) µs |")
    print("| load tool CPU meanwhile (pollers and writers, same 2 cores) | \(format(result.loadCPUSeconds)) s |")
    print("| polls refused (503), failed | \(result.refusedPolls), \(result.failedPolls) |")
    guard result.failedPolls == 0, result.deliveries > 0 else {
        say("polls: \(result.failedPolls) polls failed, \(result.deliveries) deliveries")
        exit(1)
    }
} else if scale {
    guard let hubBinary, let postgresURL else {
        say("scale needs --hub-binary PATH/strata-sync-hub and --postgres URL")
        exit(64)
    }
    let folderHub = bench.folder.appendingPathComponent("scale-hub")
    let perPusher = option("--entries").flatMap(Int.init) ?? 500
    var rows = try await bench.scaleOut(
        hubBinary: hubBinary, store: ["--postgres", postgresURL], hub: SyncHub(store: try .postgres(url: postgresURL)), label: "PostgreSQL",
        entriesPerPusher: perPusher)
    rows += try await bench.scaleOut(
        hubBinary: hubBinary, store: [folderHub.path], hub: try SyncHub(directory: folderHub), label: "SQLite folder",
        entriesPerPusher: perPusher * 4)
    print(
        "| store, hub processes (2 spaces, 8 pushers each, pushes of 100) | space 1 (changes/s) | space 2 | both | hub CPU (cores) | PostgreSQL CPU | load tool CPU |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows {
        let hubCPU = row.hubCores.map(format).joined(separator: " + ")
        print("| \(row.label) | \(row.rates[0]) | \(row.rates[1]) | \(row.total) | \(hubCPU) | \(format(row.postgresCores)) | \(format(row.loadCores)) |")
    }
} else if applyOnly {
    guard let postgresURL else {
        say("apply needs --postgres URL")
        exit(64)
    }
    let count = option("--count").flatMap(Int.init) ?? 5_000
    let hub = SyncHub(store: try .postgres(url: postgresURL))
    let space = "bench_apply_" + String(UInt32.random(in: 0 ... .max), radix: 36)
    try hub.createSpace(space) { try $0.execute(SyncBench.schema) }
    let rate = try await bench.applyRate(hub: hub, space: space, count: count)
    let floor = try await bench.postgresInsertFloor(url: postgresURL, likeSpace: space, count: count)
    print("| in process, \(count) single-row changes in pushes of 100 | changes/s |")
    print("|---|---:|")
    print("| the hub's apply, PostgreSQL store | \(rate) |")
    print("| floor: plain multi-row `INSERT`, 100 per statement | \(floor) |")
} else if let hubBinary, let postgresURL {
    try await bench.compareStores(hubBinary: hubBinary, postgresURL: postgresURL)
} else if hubBinary != nil || postgresURL != nil {
    say("--hub-binary and --postgres go together")
    exit(64)
} else {
    let hub = try SyncHub(directory: bench.folder.appendingPathComponent("hub"))
    for space in ["latency", "throughput", "local"] { try hub.createSpace(space) { try $0.execute(SyncBench.schema) } }
    let port = try await startHub(hub)
    let latency = try await bench.latency(space: "latency", ports: [port])
    let throughput = try await bench.throughput(space: "throughput", ports: [port]) { try hub.version(ofSpace: "throughput") }
    let apply = try await bench.applyRate(hub: hub, space: "local", count: max(1_000, min(throughput.changes, 20_000)))
    print("| measure | value |")
    print("|---|---:|")
    print("| commit to visible on another replica, p50 (8 writers x 10 tx/s, \(latency.seen) of \(latency.expected) rows seen) | \(format(latency.p50)) ms |")
    print("| commit to visible, p99 | \(format(latency.p99)) ms |")
    print("| push throughput over HTTP, 8 writers at full speed | \(throughput.rate) changes/s (\(throughput.changes) in \(format(throughput.seconds)) s) |")
    print("| the hub's own apply rate, single-row entries in process | \(apply) changes/s |")
}
exit(0)
#else
print("changesets are not available on this platform")
#endif
