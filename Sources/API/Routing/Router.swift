/// Every route of the surface, from the route groups. A path that matches no route is `404`;
/// a method its route does not have is `405`.
struct Router {
    let routes: [Route]

    init(groups: [any RouteGroup]) {
        routes = groups.flatMap(\.routes)
    }

    func match(_ path: [ArraySlice<UInt8>]) -> (Route, PathParameters)? {
        for route in routes {
            if let parameters = route.match(path) { return (route, parameters) }
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
