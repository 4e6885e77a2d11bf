import ArgumentParser
import Foundation
import ReverieServer

/// `reverie tls issue`: the local authority's server certificate for a front (deploy/nginx) that
/// does TLS itself: made or renewed in `<data>/tls/`, its two files printed.
struct TLSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tls",
        abstract: "Reverie's local certificate authority, for a front server that does TLS.",
        subcommands: [Issue.self, NewAuthority.self])

    struct Issue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make or renew the server certificate in <data>/tls and print the certificate chain's and the key's paths.",
            discussion: "It covers the machine's name, <name>.local, localhost, every interface address and REVERIE_TLS_NAMES (comma-separated), and is renewed when those change or its end is within 30 days. The authority is <data>/tls/ca.crt; its key never leaves the data directory.")

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let (directory, names) = TLSCommand.setting(storage)
            do {
                let authority = try LocalAuthority.openOrCreate(in: directory, names: names)
                let outside = authority.signable(names).outside
                if !outside.isEmpty {
                    FileHandle.standardError.write(Data("The authority may not sign \(outside.joined(separator: ", ")); they are left out. `reverie tls new-authority` makes one for them.\n".utf8))
                }
                _ = try authority.serverCertificate(for: names)
                print(LocalAuthority.path(.serverCertificate, in: directory))
                print(LocalAuthority.path(.serverKey, in: directory))
            } catch {
                throw CommandFailure(error, about: "the certificate in \(directory)")
            }
        }
    }

    /// `<data>/tls`, and the machine's names now with `REVERIE_TLS_NAMES` (comma-separated).
    static func setting(_ storage: StorageOptions) -> (directory: String, names: ServerNames) {
        let environment = ProcessInfo.processInfo.environment
        let data = ServerConfig.dataDirectory(flag: storage.dataDirectory, environment: environment)
        let extra = (environment["REVERIE_TLS_NAMES"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return ((data as NSString).appendingPathComponent("tls"), ServerNames.current(extra: extra))
    }

    struct NewAuthority: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-authority",
            abstract: "Make a new local authority in <data>/tls for the machine's names now, keeping the old one's files beside it.",
            discussion: """
                Run it when a name was added (REVERIE_TLS_NAMES) that the authority may not sign, or when it nears its end. The old \
                authority's files are renamed with the date (ca.crt.replaced-YYYYMMDD, …) and the server certificate is issued anew. \
                Restart a running server: it keeps the authority it started with. Every device that trusted the old authority must trust \
                the new one (/welcome).
                """)

        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let (directory, names) = TLSCommand.setting(storage)
            do {
                let authority = try LocalAuthority.replace(in: directory, names: names)
                _ = try authority.serverCertificate(for: names)
                print("A new authority for \(authority.signable(names).covered); its fingerprint (SHA-256):")
                print(try authority.fingerprint)
                print("Restart the server if it is running, then trust the new authority on each device: open /welcome there.")
            } catch {
                throw CommandFailure(error, about: "the authority in \(directory)")
            }
        }
    }
}
