import Vapor

/// Plans: what each person's plan lets them do, and the owner's choice of plans.
struct PlansFeature: Feature {
    let routes: [any RouteCollection]

    init(users: Store<any UserRepository>, developmentMode: Bool) {
        routes = [PlanController(users: users, developmentMode: developmentMode)]
    }
}
