/// The route groups of the surface, one per resource. A new resource adds its group here; a
/// new route of a resource is a file in its group's folder and a line in its `routes`.
enum RouteGroups {
    static func all(_ context: APIContext) -> [any RouteGroup] {
        [
            HealthRoutes(context),
            MetricsRoutes(context),
            AccountRoutes(context),
            AttestRoutes(context),
            KeyRoutes(context),
            QuestionRoutes(context),
            EventRoutes(context),
            ActivityRoutes(context),
            DeviceRoutes(context),
            WebPushRoutes(context),
            TaskRoutes(context),
            InboxRoutes(context),
            MCPRoutes(context),
            OAuthRoutes(context),
            WebRoutes(context),
            SiteRoutes(context),
        ]
    }
}
