import HTTP

extension APIHandler {
    /// Every route of the REST surface, in one place. A route's pattern is what the request log
    /// shows; a path that matches none is 404, a method a route does not have is 405.
    static var routeTable: [Route] {
        [
            Route("/health", [
                Endpoint(method: .get, access: .anyone, takesBody: false) { api, _ in api.health() },
            ]),
            Route("/v1/accounts", [
                Endpoint(method: .post, access: .anyone, takesBody: true) { api, exchange in try api.createAccount(&exchange) },
            ]),
            Route("/v1/account", [
                Endpoint(method: .get, access: .account, takesBody: false) { api, exchange in try api.getAccount(&exchange) },
                Endpoint(method: .patch, access: .account, takesBody: true) { api, exchange in try api.updateAccount(&exchange) },
                Endpoint(method: .delete, access: .account, takesBody: false) { api, exchange in try api.deleteAccount(&exchange) },
            ]),
            Route("/v1/keys", [
                Endpoint(method: .get, access: .account, takesBody: false) { api, exchange in try api.listKeys(&exchange) },
                Endpoint(method: .post, access: .account, takesBody: true) { api, exchange in try api.createKey(&exchange) },
            ]),
            Route("/v1/keys/{key_id}", [
                Endpoint(method: .patch, access: .account, takesBody: true) { api, exchange in try api.updateKey(&exchange) },
                Endpoint(method: .delete, access: .account, takesBody: false) { api, exchange in try api.deleteKey(&exchange) },
            ]),
        ]
    }
}
