#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test could not reserve a loopback port.
public struct LocalPortError: Error, CustomStringConvertible {
    public let description: String
}

/// `count` distinct TCP ports on 127.0.0.1 that nothing listens on, for servers a test starts.
///
/// The kernel picks each (a bind to port 0) and the sockets are held until all are chosen, so
/// the ports differ; they are closed before returning, for the server to bind. A port drawn at
/// random can instead be one an outgoing connection of the same run holds (the ephemeral range),
/// which a hub test once met as "Address already in use".
public func unusedLocalPorts(count: Int) throws -> [Int] {
    var sockets: [Int32] = []
    defer { for socket in sockets { close(socket) } }
    var ports: [Int] = []
    for _ in 0..<count {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw LocalPortError(description: "socket() failed: errno \(errno)") }
        sockets.append(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw LocalPortError(description: "bind() to 127.0.0.1:0 failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw LocalPortError(description: "getsockname() failed: errno \(errno)") }
        ports.append(Int(UInt16(bigEndian: address.sin_port)))
    }
    return ports
}

/// One TCP port on 127.0.0.1 that nothing listens on (``unusedLocalPorts(count:)``).
public func unusedLocalPort() throws -> Int {
    try unusedLocalPorts(count: 1)[0]
}
