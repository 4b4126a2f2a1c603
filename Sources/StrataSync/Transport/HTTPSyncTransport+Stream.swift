// The HTTP transport's pull stream: one long-lived GET whose body arrives as server-sent events,
// read as it comes through a URLSession delegate (FoundationNetworking has no `bytes(for:)`).
import Foundation
import Strata

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPSyncTransport {
    /// The hub's frames for `request` as they come, when ``streamsPulls`` is on and the hub has
    /// the stream route (nil otherwise: the replica long polls). A refusal when the stream opens
    /// is thrown as ``pull(_:)`` throws it; a connection lost midway ends the stream with
    /// ``SyncError/hubUnreachable(url:reason:)``.
    public func pullStream(_ request: SyncPullRequest) throws -> AsyncThrowingStream<SyncPullFrame, any Error>? {
        guard streamsPulls, !PullStreams.shared.lacksStreams(url) else { return nil }
        var urlRequest = URLRequest(url: try pullURL(request, action: "stream"))
        if let token { urlRequest.setValue("Bearer " + token, forHTTPHeaderField: "Authorization") }
        urlRequest.setValue(SyncWire.pullStreamContentType, forHTTPHeaderField: "Accept")
        return PullStreams.shared.open(urlRequest, hub: url)
    }
}

/// Every pull stream of the process on one delegate session, each task's bytes read into its
/// own stream.
private final class PullStreams: NSObject, URLSessionDataDelegate, Sendable {
    static let shared = PullStreams()

    private struct Open {
        var continuation: AsyncThrowingStream<SyncPullFrame, any Error>.Continuation
        var hub: URL
        var reader = SyncPullStreamReader()
        var status = 0
        var refusal = Data()
        var cancelled = false
    }

    private let open = Locked<[Int: Open]>([:])
    /// Hubs that answered a stream with a route-not-found: older than streams.
    private let withoutStreams = Locked<Set<URL>>([])

    /// Made once and never released, as the transport's own session (a session released in
    /// swift-corelibs-foundation crashed). Idle longer than its timeout (heartbeats come every
    /// 15 s by default) and a stream counts as lost.
    private let sessionOnce = Locked<URLSession?>(nil)

    private func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = 256
        configuration.timeoutIntervalForRequest = 120
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func lacksStreams(_ hub: URL) -> Bool { withoutStreams.withLock { $0.contains(hub) } }

    func open(_ request: URLRequest, hub: URL) -> AsyncThrowingStream<SyncPullFrame, any Error> {
        let session = sessionOnce.withLock { session in
            if let session { return session }
            let made = makeSession()
            session = made
            return made
        }
        let (stream, continuation) = AsyncThrowingStream<SyncPullFrame, any Error>.makeStream()
        let task = session.dataTask(with: request)
        let id = task.taskIdentifier
        open.withLock { $0[id] = Open(continuation: continuation, hub: hub) }
        let streams = open
        continuation.onTermination = { _ in
            // From a dispatch queue, never under the Swift task's lock (the transport's own
            // requests say why).
            DispatchQueue.global().async {
                streams.withLock { $0[id]?.cancelled = true }
                task.cancel()
            }
        }
        task.resume()
        return stream
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        open.withLock { $0[dataTask.taskIdentifier]?.status = status }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let outcome = open.withLock {
            open -> (continuation: AsyncThrowingStream<SyncPullFrame, any Error>.Continuation, frames: [SyncPullFrame], error: (any Error)?)? in
            guard var stream = open[id] else { return nil }
            defer { open[id] = stream }
            guard (200..<300).contains(stream.status) else {
                // A refusal's body is small: kept whole for its words, up to 64 KiB.
                if stream.refusal.count < 1 << 16 { stream.refusal.append(data.prefix((1 << 16) - stream.refusal.count)) }
                return nil
            }
            do {
                return (stream.continuation, try stream.reader.read(data), nil)
            } catch {
                return (stream.continuation, [], error)
            }
        }
        guard let outcome else { return }
        for frame in outcome.frames { outcome.continuation.yield(frame) }
        if let error = outcome.error {
            outcome.continuation.finish(throwing: error)
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let stream = open.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            if stream.cancelled {
                stream.continuation.finish()
            } else {
                let reason = HTTPSyncTransport.words(for: error, attempts: 1)
                stream.continuation.finish(throwing: SyncError.hubUnreachable(url: stream.hub.absoluteString, reason: reason))
            }
            return
        }
        guard (200..<300).contains(stream.status) else {
            let message = String(decoding: stream.refusal, as: UTF8.self)
            // A 404 that is not the hub's own answer (an unknown space is JSON): a hub older
            // than streams, long polled from now on.
            if stream.status == 404, (try? JSONDecoder().decode(SyncErrorAnswer.self, from: stream.refusal)) == nil {
                withoutStreams.withLock { _ = $0.insert(stream.hub) }
                stream.continuation.finish()
                return
            }
            stream.continuation.finish(throwing: HTTPSyncTransport.error(status: stream.status, message: message))
            return
        }
        stream.continuation.finish()
    }
}
