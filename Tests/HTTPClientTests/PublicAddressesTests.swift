import EventLoop
import HTTPClient
import Testing

@Suite struct PublicAddressesTests {
    @Test func onlyAddressesOfThePublicInternetArePublic() {
        let notPublic = ["0.0.0.0", "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
                         "169.254.169.254", "100.64.0.1", "198.18.0.1", "224.0.0.1", "255.255.255.255", "::", "::1",
                         "fe80::1", "fd00::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "ff02::1",
                         "2001:db8::1"]
        for text in notPublic {
            #expect(!PublicAddresses.isPublic(IPAddress(text)!), "\(text)")
        }
        for text in ["8.8.8.8", "172.32.0.1", "1.1.1.1", "2606:4700::1111", "::ffff:8.8.8.8", "142.250.74.42"] {
            #expect(PublicAddresses.isPublic(IPAddress(text)!), "\(text)")
        }
    }

    @Test func namesThatLeadToThisMachineOrItsNetworkArePrivateWithoutALookup() {
        for host in ["localhost", "localhost.", "api.localhost", "printer.local", "db.internal", "nas.home.arpa", "router.lan",
                     "127.0.0.1", "10.0.0.8", "::1"] {
            #expect(PublicAddresses.isPrivateName(host), "\(host)")
        }
        for host in ["client.example.com", "localhost.example.com", "local", "8.8.8.8", "2606:4700::1111"] {
            #expect(!PublicAddresses.isPrivateName(host), "\(host)")
        }
    }
}
