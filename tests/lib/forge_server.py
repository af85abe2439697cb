#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A stand-in for GitHub's and GitLab's REST APIs on loopback, for the tests of `wperf-bench post`.

Answers like GitHub's issue comments API:
  GET   /repos/O/R/issues/N/comments?per_page=&page=   (Link headers; next pages as
        /repositories/ID/issues/N/comments?..., as GitHub gives them)
  POST  /repos/O/R/issues/N/comments                   201 and the comment
  PATCH /repos/O/R/issues/comments/ID                  200 and the comment
and like GitLab's merge-request notes API (the token in PRIVATE-TOKEN or JOB-TOKEN):
  GET   /api/v4/projects/ID/merge_requests/IID/notes?sort=&per_page=&page=   (Link headers)
  POST  /api/v4/projects/ID/merge_requests/IID/notes                 201 and the note
  PUT   /api/v4/projects/ID/merge_requests/IID/notes/NOTE_ID         200 and the note
(ID a number or a URL-encoded path), and like their issues APIs, for `post --changes`:
  GET   /repos/O/R/issues?labels=&state=&per_page=&page=     (Link headers; state open by default)
  POST  /repos/O/R/issues                                     201 and the issue
  PATCH /repos/O/R/issues/N                                   200 ("state": "closed" closes it)
  GET   /api/v4/projects/ID/issues?labels=&per_page=&page=    (Link headers; every state)
  POST  /api/v4/projects/ID/issues                            201 and the issue
  PUT   /api/v4/projects/ID/issues/IID                        200 ("state_event": "close" closes it)
with bodies over 65,536 characters refused (422),
and failures on demand (--fail):
GitHub's errors, rate limits, server errors, slow answers, answers that are not JSON.

Prints its port on the first line of standard output. Records every request as a
JSON line in --log (method, path, headers, body, status, time) and every comment
in --state after each change (and every issue in STATE.issues), for the tests to check.
"""
import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

COMMENT_MAX = 65536
DOCS = "https://docs.github.com/rest/issues/comments"
FAILURES = {
    "401": (401, {}, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}),
    "403-fork": (403, {}, {"message": "Resource not accessible by integration",
                           "documentation_url": DOCS + "#create-an-issue-comment"}),
    "403-rate": (403, {"X-RateLimit-Remaining": "0"},
                 {"message": "API rate limit exceeded for installation ID 1.",
                  "documentation_url": "https://docs.github.com/rest/rate-limit"}),
    "404": (404, {}, {"message": "Not Found", "documentation_url": DOCS + "#list-issue-comments"}),
    "422": (422, {}, {"message": "Validation Failed",
                      "errors": [{"resource": "IssueComment", "code": "custom", "field": "body",
                                  "message": "body is too long (maximum is 65536 characters)"}],
                      "documentation_url": DOCS + "#create-an-issue-comment"}),
    "429": (429, {"Retry-After": "1"},
            {"message": "You have exceeded a secondary rate limit.",
             "documentation_url": "https://docs.github.com/rest/rate-limit"}),
    "500": (500, {}, {"message": "Server Error"}),
}
# A proxy's error page where JSON was expected.
GARBAGE = b"<html><body>Service Unavailable</body></html>"
WRITES_ONLY = {"403-fork", "422", "502-after-create"}


class Forge:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.comments = {}  # (owner/name, issue) -> [comment]
        self.issues = {}  # owner/name, or gitlab:project -> [issue]
        self.repo_ids = {}  # owner/name -> id, for the /repositories/ID links
        self.next_id = 1000
        self.failures_left = args.fail_count
        self.slow_left = args.slow_count

    def issue(self, repo, number):
        key = (repo, number)
        if key not in self.comments:
            self.repo_ids.setdefault(repo, 4242 + len(self.repo_ids))
            self.comments[key] = []
            for i in range(self.args.seed):
                self.add(repo, number, "Looks good to me (%d)." % (i + 1), "reviewer")
        return self.comments[key]

    def add(self, repo, number, body, login):
        self.next_id += 1
        if repo.startswith("gitlab:"):  # a merge request's note: no html_url
            c = {"id": self.next_id, "type": None, "body": body, "system": False,
                 "author": {"id": 7, "username": login, "name": login},
                 "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z",
                 "noteable_id": 99, "noteable_type": "MergeRequest", "noteable_iid": number,
                 "resolvable": False, "confidential": False, "internal": False}
            self.comments[(repo, number)].append(c)
            self.save()
            return c
        c = {"id": self.next_id, "node_id": "IC_%d" % self.next_id,
             "url": "%s/repos/%s/issues/comments/%d" % (self.base, repo, self.next_id),
             "html_url": "https://github.example/%s/pull/%d#issuecomment-%d" % (repo, number, self.next_id),
             "body": body, "user": {"login": login, "id": 41898282, "type": "Bot"},
             "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
             "author_association": "NONE"}
        self.comments[(repo, number)].append(c)
        self.save()
        return c

    def find(self, repo, comment_id):
        for (r, _), comments in self.comments.items():
            for c in comments:
                if r == repo and c["id"] == comment_id:
                    return c
        return None

    def save(self):
        if not self.args.state:
            return
        for path, items in ((self.args.state, self.comments), (self.args.state + ".issues", self.issues)):
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                json.dump([c for cs in items.values() for c in cs], f)
            os.replace(tmp, path)

    def add_issue(self, repo, fields):
        """A new issue of repo from a request's fields (title, body or description, labels)."""
        issues = self.issues.setdefault(repo, [])
        self.next_id += 1
        number = len(issues) + 1
        if repo.startswith("gitlab:"):
            labels = fields.get("labels", "")
            i = {"id": self.next_id, "iid": number, "project_id": 42, "title": fields["title"],
                 "description": fields.get("description"), "state": "opened",
                 "labels": [l for l in labels.split(",") if l],
                 "web_url": "https://gitlab.example/%s/-/issues/%d" % (repo[7:], number)}
        else:
            i = {"id": self.next_id, "number": number, "title": fields["title"],
                 "body": fields.get("body"), "state": "open",
                 "labels": [{"name": l} for l in fields.get("labels", [])],
                 "html_url": "https://github.example/%s/issues/%d" % (repo, number)}
        issues.append(i)
        self.save()
        return i

    def take(self, what):
        """Is this request one of the first --fail-count (or --slow-count) ones?"""
        name = what + "_left"
        left = getattr(self, name)
        if left == 0:
            return False
        if left > 0:
            setattr(self, name, left - 1)
        return True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as GitHub

    def log_message(self, *args):
        pass

    def answer(self, status, obj, headers=None, raw=None):
        data = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-RateLimit-Limit", "5000")
        hdrs = {"X-RateLimit-Remaining": "4999", "X-RateLimit-Reset": str(int(time.time()) + 3600)}
        hdrs.update(headers or {})
        for k, v in hdrs.items():
            self.send_header(k, v)
        self.end_headers()
        # Recorded before it is sent: once the client has its answer, the log has it.
        self.record(status)
        try:
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        self.handle_request("GET")

    def do_POST(self):
        self.handle_request("POST")

    def do_PATCH(self):
        self.handle_request("PATCH")

    def do_PUT(self):
        self.handle_request("PUT")

    def handle_request(self, method):
        forge = self.server.forge
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        self.request_line = {"method": method, "path": self.path, "body": body, "time": time.time(),
                             "headers": {k.lower(): v for k, v in self.headers.items()}}
        with forge.lock:
            slow = forge.args.slow > 0 and forge.take("slow")
        if slow:
            time.sleep(forge.args.slow)
        with forge.lock:
            self.route(forge, method, body)

    def record(self, status):
        line = dict(self.request_line, status=status)
        with open(self.server.forge.args.log, "a") as f:
            f.write(json.dumps(line) + "\n")

    def route(self, forge, method, body):
        url = urlsplit(self.path)
        parts = url.path.strip("/").split("/")
        mode = forge.args.fail
        if mode in FAILURES and (method != "GET" or mode not in WRITES_ONLY) and forge.take("failures"):
            status, headers, obj = FAILURES[mode]
            headers = dict(headers)
            if mode == "403-rate":
                headers["X-RateLimit-Reset"] = str(int(time.time()) + 3600)
            return self.answer(status, obj, headers)
        if mode == "garbage" and forge.take("failures"):
            return self.answer(200, None, raw=GARBAGE)
        if parts[:2] == ["api", "v4"]:
            return self.gitlab(forge, method, parts[2:], body, parse_qs(url.query), mode)
        expected = "Bearer " + forge.args.token
        if self.headers.get("Authorization") != expected:
            return self.answer(401, FAILURES["401"][2])
        # /repos/O/R/issues/N/comments or /repositories/ID/issues/N/comments
        if len(parts) >= 5 and parts[-1] == "comments" and parts[-3] == "issues" and parts[-2].isdigit():
            if parts[0] == "repos" and len(parts) == 6:
                repo = parts[1] + "/" + parts[2]
            elif parts[0] == "repositories" and len(parts) == 5:
                ids = {v: k for k, v in forge.repo_ids.items()}
                repo = ids.get(int(parts[1])) if parts[1].isdigit() else None
            else:
                repo = None
            if repo and method == "GET":
                return self.list(forge, repo, int(parts[-2]), parse_qs(url.query))
            if repo and method == "POST" and parts[0] == "repos":
                return self.create(forge, repo, int(parts[-2]), body, mode)
        if method == "PATCH" and len(parts) == 6 and parts[0] == "repos" and parts[3:5] == ["issues", "comments"]:
            return self.update(forge, parts[1] + "/" + parts[2], parts[5], body)
        # /repos/O/R/issues[/N], or /repositories/ID/issues (the next pages)
        if parts[-1] == "issues" and len(parts) in (3, 4) and method == "GET":
            repo = parts[1] + "/" + parts[2] if parts[0] == "repos" and len(parts) == 4 else None
            if parts[0] == "repositories" and len(parts) == 3 and parts[1].isdigit():
                repo = {v: k for k, v in forge.repo_ids.items()}.get(int(parts[1]))
            if repo:
                forge.repo_ids.setdefault(repo, 4242 + len(forge.repo_ids))
                return self.list_issues(forge, repo, parse_qs(url.query), "%s/repositories/%d/issues" % (
                    forge.base, forge.repo_ids[repo]))
        if parts[0] == "repos" and len(parts) == 4 and parts[3] == "issues" and method == "POST":
            return self.create_issue(forge, parts[1] + "/" + parts[2], body, "body")
        if parts[0] == "repos" and len(parts) == 5 and parts[3] == "issues" and method == "PATCH":
            return self.update_issue(forge, parts[1] + "/" + parts[2], parts[4], body, "body")
        return self.answer(404, FAILURES["404"][2])

    def gitlab(self, forge, method, parts, body, query, mode):
        """projects/ID/merge_requests/IID/notes[/NOTE_ID], as GitLab's API v4."""
        token = self.headers.get("PRIVATE-TOKEN") or self.headers.get("JOB-TOKEN")
        if token != forge.args.token or self.headers.get("Authorization"):
            return self.answer(401, {"message": "401 Unauthorized"})
        if len(parts) in (5, 6) and parts[0] == "projects" and parts[2] == "merge_requests" \
                and parts[3].isdigit() and parts[4] == "notes":
            key, iid = "gitlab:" + unquote(parts[1]), int(parts[3])
            if len(parts) == 5 and method == "GET":
                link = "%s/api/v4/projects/%s/merge_requests/%d/notes?sort=asc" % (
                    forge.base, parts[1], iid)
                return self.list(forge, key, iid, query, link)
            if len(parts) == 5 and method == "POST":
                return self.create(forge, key, iid, body, mode)
            if len(parts) == 6 and method == "PUT":
                return self.update(forge, key, parts[5], body)
        if len(parts) in (3, 4) and parts[0] == "projects" and parts[2] == "issues":
            key = "gitlab:" + unquote(parts[1])
            if len(parts) == 3 and method == "GET":
                return self.list_issues(forge, key, query, "%s/api/v4/projects/%s/issues" % (
                    forge.base, parts[1]))
            if len(parts) == 3 and method == "POST":
                return self.create_issue(forge, key, body, "description")
            if len(parts) == 4 and method == "PUT":
                return self.update_issue(forge, key, parts[3], body, "description")
        return self.answer(404, {"message": "404 Not found"})

    def list(self, forge, repo, number, query, link=None):
        comments = forge.issue(repo, number)
        per_page = min(int(query.get("per_page", ["30"])[0]), forge.args.per_page_cap)
        page = int(query.get("page", ["1"])[0])
        last = max(1, (len(comments) + per_page - 1) // per_page)
        if link:
            link = link + "&per_page=%d&page={page}" % per_page
        else:
            link = "%s/repositories/%d/issues/%d/comments?per_page=%d&page={page}" % (
                forge.base, forge.repo_ids[repo], number, per_page)
        def at(n):
            return link.replace("{page}", str(n))
        rels = []
        if page < last:
            rels += ['<%s>; rel="next"' % at(page + 1), '<%s>; rel="last"' % at(last)]
        if page > 1:
            rels += ['<%s>; rel="first"' % at(1), '<%s>; rel="prev"' % at(page - 1)]
        headers = {"Link": ", ".join(rels)} if rels else {}
        self.answer(200, comments[(page - 1) * per_page:page * per_page], headers)

    def list_issues(self, forge, repo, query, link):
        """The issues of repo with the label asked, of the state asked (GitHub's default: open)."""
        label = query.get("labels", [None])[0]
        state = query.get("state", ["all" if repo.startswith("gitlab:") else "open"])[0]
        issues = [i for i in forge.issues.get(repo, []) if label is None or label in [
            l if isinstance(l, str) else l["name"] for l in i["labels"]]]
        if state != "all":
            issues = [i for i in issues if i["state"] in ((state, "opened") if state == "open" else (state,))]
        per_page = min(int(query.get("per_page", ["30"])[0]), forge.args.per_page_cap)
        page = int(query.get("page", ["1"])[0])
        last = max(1, (len(issues) + per_page - 1) // per_page)
        rest = "&".join("%s=%s" % (k, v[0]) for k, v in sorted(query.items()) if k not in ("page", "per_page"))
        def at(n):
            return "%s?%s&per_page=%d&page=%d" % (link, rest, per_page, n)
        rels = ['<%s>; rel="next"' % at(page + 1), '<%s>; rel="last"' % at(last)] if page < last else []
        self.answer(200, issues[(page - 1) * per_page:page * per_page],
                    {"Link": ", ".join(rels)} if rels else {})

    def issue_fields(self, body, text_key):
        """The fields of a JSON request for an issue, or None after answering why not."""
        try:
            fields = json.loads(body)
            assert isinstance(fields, dict)
            assert all(isinstance(fields.get(k, ""), str) for k in ("title", text_key))
        except Exception:
            self.answer(400, {"message": "Problems parsing JSON"})
            return None
        if len(fields.get(text_key) or "") > COMMENT_MAX:
            self.answer(422, FAILURES["422"][2])
            return None
        return fields

    def create_issue(self, forge, repo, body, text_key):
        fields = self.issue_fields(body, text_key)
        if fields is None:
            return
        if not fields.get("title"):
            return self.answer(422, {"message": "Validation Failed",
                                     "errors": [{"message": "title is missing"}]})
        self.answer(201, forge.add_issue(repo, fields))

    def update_issue(self, forge, repo, number, body, text_key):
        key = "iid" if repo.startswith("gitlab:") else "number"
        found = [i for i in forge.issues.get(repo, []) if str(i[key]) == number]
        if not found:
            return self.answer(404, FAILURES["404"][2])
        fields = self.issue_fields(body, text_key)
        if fields is None:
            return
        issue = found[0]
        for k in ("title", text_key):
            if k in fields:
                issue[k] = fields[k]
        if fields.get("state") == "closed" or fields.get("state_event") == "close":
            issue["state"] = "closed"
        forge.save()
        self.answer(200, issue)

    def comment_body(self, body):
        """The "body" of a JSON request, or None after answering why not."""
        if not self.headers.get("Content-Type", "").startswith("application/json"):
            self.answer(415, {"message": "Unsupported Media Type"})
            return None
        try:
            text = json.loads(body)["body"]
            assert isinstance(text, str)
        except Exception:
            self.answer(400, {"message": "Problems parsing JSON"})
            return None
        if len(text) > COMMENT_MAX:
            self.answer(422, FAILURES["422"][2])
            return None
        return text

    def create(self, forge, repo, number, body, mode):
        text = self.comment_body(body)
        if text is None:
            return
        forge.issue(repo, number)
        c = forge.add(repo, number, text, "github-actions[bot]")
        if mode == "502-after-create" and forge.take("failures"):
            return self.answer(502, None, raw=b"<html><body>502 Bad Gateway</body></html>")
        self.answer(201, c)

    def update(self, forge, repo, comment_id, body):
        c = forge.find(repo, int(comment_id)) if comment_id.isdigit() else None
        if c is None:
            return self.answer(404, FAILURES["404"][2])
        text = self.comment_body(body)
        if text is None:
            return
        c["body"] = text
        c["updated_at"] = "2026-01-02T00:00:00Z"
        forge.save()
        self.answer(200, c)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--log", required=True, help="every request, a JSON line each")
    p.add_argument("--state", help="every comment, as a JSON array, after each change")
    p.add_argument("--token", required=True, help="the token expected after 'Bearer '")
    p.add_argument("--seed", type=int, default=0, help="comments on each issue before ours")
    p.add_argument("--per-page-cap", type=int, default=100, help="the largest page")
    p.add_argument("--fail", choices=sorted(FAILURES) + ["502-after-create", "garbage"],
                   help="answer requests with this failure (422, 403-fork: writes only; "
                        "502-after-create: create the comment, answer 502; garbage: 200 "
                        "with HTML)")
    p.add_argument("--fail-count", type=int, default=-1, help="fail this many requests (-1: all)")
    p.add_argument("--slow", type=float, default=0, help="seconds to wait before answering")
    p.add_argument("--slow-count", type=int, default=-1, help="slow this many requests (-1: all)")
    args = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.forge = Forge(args)
    server.forge.base = "http://127.0.0.1:%d" % server.server_address[1]
    open(args.log, "w").close()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
