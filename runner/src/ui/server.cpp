// The web UI's HTTP server: cpp-httplib (Debian's libcpp-httplib-dev, header-only), compiled in
// this one file because it is heavy; every request goes to Api::handle (api.cpp), which knows
// nothing of sockets.
#include <httplib.h>

#include "hpsearch/runner/errors.hpp"
#include "ui/api.hpp"

namespace hpsearch::ui {
namespace {
constexpr std::size_t kServerThreads = 32;
}  // namespace

void serve(Api& api, const std::string& host, int port, const std::function<void(int)>& ready) {
  httplib::Server server;
  server.set_payload_max_length(64 * 1024);  // nothing the API takes has a body worth more
  // A connection holds a worker thread while it is read (cpp-httplib serves a connection per
  // thread), so a local program that opens many connections and sends nothing would queue every
  // other request behind them: with the library's defaults (8 threads, 5 s per read) 300 idle
  // connections kept the API silent for over 20 s. More threads, and a connection that sends
  // nothing for a second (or stays idle two seconds between requests) is closed: such a flood
  // drains at 32 connections a second, and the server never stops answering for good.
  server.new_task_queue = [] { return new httplib::ThreadPool(kServerThreads); };
  server.set_read_timeout(1, 0);
  server.set_keep_alive_timeout(2);
  server.set_keep_alive_max_count(100);
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
