// The web UI's HTTP server: cpp-httplib (Debian's libcpp-httplib-dev, header-only), compiled in
// this one file because it is heavy; every request goes to Api::handle (api.cpp), which knows
// nothing of sockets.
#include <httplib.h>

#include "hpsearch/runner/errors.hpp"
#include "ui/api.hpp"

namespace hpsearch::ui {

void serve(Api& api, const std::string& host, int port, const std::function<void(int)>& ready) {
  httplib::Server server;
  server.set_payload_max_length(64 * 1024);  // nothing the API takes has a body worth more
  server.set_pre_routing_handler([&api](const httplib::Request& req, httplib::Response& res) {
    Request request;
    request.method = req.method;
    request.path = req.path;
    for (const auto& [name, value] : req.params) request.query.emplace(name, value);
    request.authorization = req.get_header_value("Authorization");
    request.host = req.get_header_value("Host");
    const Response answer = api.handle(request);
    res.status = answer.status;
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Content-Type-Options", "nosniff");
    // The pages run only what they were served with: no inline script, nothing from elsewhere.
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self'; img-src 'self' data:; "
                   "frame-ancestors 'none'");
    res.set_content(answer.body, answer.content_type);
    return httplib::Server::HandlerResponse::Handled;
  });
  const int bound =
      port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    throw RunnerSetupError("searcher-run ui: cannot listen on " + host + ":" +
                           std::to_string(port) + " (in use, or not an address of this host)");
  }
  ready(bound);
  server.listen_after_bind();
}

}  // namespace hpsearch::ui
