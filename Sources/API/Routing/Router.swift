/// Every route of the surface, from the route groups. A path that matches no route is `404`;
/// a method its route does not have is `405`.
struct Router {
    let routes: [Route]
    /// The index in `groups` of each route's group, and the groups' names (`TaskRoutes` is
    /// `task`): the metrics' label of a route's latency.
    let groupOfRoute: [Int]
    let groups: [String]

    init(groups: [any RouteGroup]) {
        var routes: [Route] = []
        var groupOfRoute: [Int] = []
        var names: [String] = []
        for group in groups {
            var name = String(describing: type(of: group))
            if name.hasSuffix("Routes") { name.removeLast("Routes".count) }
            names.append(name.lowercased())
            let own = group.routes
            routes += own
            groupOfRoute += Array(repeating: names.count - 1, count: own.count)
        }
        self.routes = routes
        self.groupOfRoute = groupOfRoute
        self.groups = names
    }

    /// The route `path` matches, with its index in `routes`.
    func match(_ path: [ArraySlice<UInt8>]) -> (index: Int, route: Route, parameters: PathParameters)? {
        for (index, route) in routes.enumerated() {
            if let parameters = route.match(path) { return (index, route, parameters) }
        }
        return nil
    }
}

/// The routes of one resource (accounts, keys, and later tasks, questions, ...): one type
/// per resource, its endpoints in files beside it. The endpoints' closures hold the group
/// (the group does not hold its routes, so there is no cycle).
protocol RouteGroup {
    var routes: [Route] { get }
}
