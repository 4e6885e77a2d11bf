import ArgumentParser
import Foundation
import ReverieServer

/// `reverie tls issue`: the local authority's server certificate for a front (deploy/nginx) that
/// does TLS itself: made or renewed in `<data>/tls/`, its two files printed.
struct TLSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls",
        abstract: "Reverie's local certificate authority, for a front server that does TLS.",
        subcommands: [Issue.self])

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make or renew the server certificate in <data>/tls and print the certificate chain's and the key's paths.",
            discussion: "It covers the machine's name, <name>.local, localhost, every interface address and REVERIE_TLS_NAMES (comma-separated), and is renewed when those change or its end is within 30 days. The authority is <data>/tls/ca.crt; its key never leaves the data directory.")

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            let data = ServerConfig.dataDirectory(flag: storage.dataDirectory, environment: environment)
            let directory = (data as NSString).appendingPathComponent("tls")
            do {
                let authority = try LocalAuthority.openOrCreate(in: directory)
                let extra = (environment["REVERIE_TLS_NAMES"] ?? "").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                _ = try authority.serverCertificate(for: ServerNames.current(extra: extra))
                print(LocalAuthority.path(.serverCertificate, in: directory))
                print(LocalAuthority.path(.serverKey, in: directory))
            } catch {
                throw CommandFailure(error, about: "the certificate in \(directory)")
            }
        }
    }
}
