package dev.delayjobs.dashboard;

import java.net.URI;

import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/** The dashboard's routes in a Spring MVC application. */
public final class ServletDashboardRoutes {

    private ServletDashboardRoutes() {
    }

    /** {@code path} (redirected to {@code path/}), {@code path/}, {@code path/dashboard.js}, {@code path/dashboard.css}. */
    public static RouterFunction<ServerResponse> of(DashboardPage page) {
        String path = page.path();
        RouterFunctions.Builder routes = RouterFunctions.route()
                .GET(path, request -> ServerResponse.temporaryRedirect(
                        URI.create(request.requestPath().contextPath().value() + path + "/")).build())
                .GET(path + "/", request -> ServerResponse.ok().contentType(DashboardPage.HTML)
                        .cacheControl(DashboardPage.PAGE_CACHE).body(page.html(request.requestPath().contextPath().value())));
        for (DashboardPage.Asset asset : DashboardPage.Asset.values()) {
            routes.GET(path + "/" + asset.file, request -> ServerResponse.ok().contentType(asset.type)
                    .cacheControl(DashboardPage.ASSET_CACHE).body(asset.body));
        }
        return routes.build();
    }
}
