// The browser's chat and join logic that needs no DOM: chat events as message
// log lines, the one log merging the play session's lines with chat, the join
// card's requests, the account API's answers, and every refusal in plain words.
import { describe, expect, it } from "vitest";
import { joinAccount } from "../ts/client/core/account-api.js";
import { SessionError } from "../ts/client/core/session-api.js";
import * as P from "../ts/client/render/palette.js";
import { chatInputProblem, chatLogLine, foldForFont, speakerLabel } from "../ts/client/ui/chat-log.js";
import { joinRequestOf } from "../ts/client/ui/join-screen.js";
import { ChannelLog, chatEventChannel, type LogView, nextView } from "../ts/client/ui/log-channels.js";
import { CHAT_SPEAKER_PRESENCE } from "../ts/protocol/chat.js";
import { explainJoinError } from "../ts/client/ui/refusal.js";

const names = new Map([[9, "Bo"]]);

describe("chat in the message log", () => {
  it("names the speaker by the name lookups, by the line's own name when unknown, and the system as such", () => {
    const line = (speakerEntityId: number, speakerName: string) =>
      chatLogLine({ kind: "line", seq: 1, speakerEntityId, speakerName, text: "hi" }, names);
    expect(line(9, "Bob the Old")).toEqual({ text: "Bo: hi", colour: P.CHAT_PLAYER });
    expect(line(12, "Cy")).toEqual({ text: "Cy: hi", colour: P.CHAT_PLAYER });
    expect(line(12, "")).toEqual({ text: "#12: hi", colour: P.CHAT_PLAYER });
    expect(line(0, "")).toEqual({ text: "system: hi", colour: P.CHAT_SYSTEM });
    expect(line(0, "notice board")).toEqual({ text: "notice board: hi", colour: P.CHAT_SYSTEM });
    expect(speakerLabel(0, "", names)).toBe("system");
  });

  it("says what went wrong in plain words", () => {
    expect(chatLogLine({ kind: "missed", count: 3 }, names).text).toBe("(3 chat lines missed)");
    expect(chatLogLine({ kind: "missed", count: 1 }, names).text).toBe("(1 chat line missed)");
    expect(chatLogLine({ kind: "not_posted", text: "spam", reason: "rate_limited" }, names)).toEqual({
      text: "Too fast, not sent: spam",
      colour: P.CHAT_PROBLEM,
    });
    expect(chatLogLine({ kind: "not_posted", text: "x", reason: "refused" }, names).text).toBe("Not posted: x");
    expect(chatLogLine({ kind: "unsent", count: 2 }, names).text).toBe(
      "2 chat lines may not have been sent (connection lost)",
    );
    expect(chatInputProblem("too_long", 230)).toBe("Too long: 230 bytes, at most 200. Shorten it.");
    expect(chatInputProblem("busy", 5)).toMatch(/still on their way/);
  });

  it("folds accents off for the HUD font and leaves ASCII alone", () => {
    expect(foldForFont("Zoë and Ångström: café")).toBe("Zoe and Angstrom: cafe");
    expect(foldForFont("plain ASCII, 100%")).toBe("plain ASCII, 100%");
  });
});

describe("the message log's channels", () => {
  const line = (speakerEntityId: number, speakerName: string, text: string) =>
    ({ kind: "line", seq: 1, speakerEntityId, speakerName, text }) as const;

  it("files a player's line as chat, the system's as system, its joins and leaves as presence", () => {
    expect(chatEventChannel(line(7, "Bo", "hi"))).toBe("chat");
    expect(chatEventChannel(line(0, "", "Welcome"))).toBe("system");
    expect(chatEventChannel(line(0, "notice board", "Ada: meet here"))).toBe("system");
    expect(chatEventChannel(line(0, CHAT_SPEAKER_PRESENCE, "Ada joined"))).toBe("presence");
    // What became of our own lines is about chat.
    expect(chatEventChannel({ kind: "missed", count: 2 })).toBe("chat");
    expect(chatEventChannel({ kind: "not_posted", text: "x", reason: "rate_limited" })).toBe("chat");
    // A presence line says who itself; a player cannot be the system, whatever name it gives.
    expect(chatLogLine(line(0, CHAT_SPEAKER_PRESENCE, "Ada joined"), new Map()).text).toBe("Ada joined");
    expect(chatEventChannel(line(9, CHAT_SPEAKER_PRESENCE, "Ada joined"))).toBe("chat");
  });

  it("shows each view its channels in arrival order; All leaves presence out, System has it", () => {
    const log = new ChannelLog();
    log.add("chat", "Bo: hi", 1);
    log.add("presence", "Cy joined", 2);
    log.add("combat", "You hit the rat for 3.", 3);
    log.add("system", "Connected via webrtc", 4);
    const texts = (view: LogView) => log.linesOf(view).map((each) => each.text);
    expect(texts("all")).toEqual(["Bo: hi", "You hit the rat for 3.", "Connected via webrtc"]);
    expect(texts("chat")).toEqual(["Bo: hi"]);
    expect(texts("combat")).toEqual(["You hit the rat for 3."]);
    expect(texts("system")).toEqual(["Cy joined", "Connected via webrtc"]);
    expect(log.since(2).map((each) => each.seq)).toEqual([3, 4]);
    expect(log.lastSeq).toBe(4);
    expect(nextView("all")).toBe("chat");
    expect(nextView("system")).toBe("all");
  });

  it("caps every channel on its own: a flood of joins cannot push one chat line out", () => {
    const log = new ChannelLog(5);
    log.add("chat", "Bo: still here", 1);
    for (let index = 0; index < 500; index++) log.add("presence", `bot${index} joined`, 2);
    expect(log.linesOf("chat").map((each) => each.text)).toEqual(["Bo: still here"]);
    expect(log.linesOf("system").map((each) => each.text)).toEqual([
      "bot495 joined",
      "bot496 joined",
      "bot497 joined",
      "bot498 joined",
      "bot499 joined",
    ]);
  });
});

describe("the join card's requests", () => {
  const fields = { nick: " Ada ", name: " ada_account ", password: "pass word " };

  it("asks for what each mode needs, trimmed but for the password", () => {
    expect(joinRequestOf("guest", fields)).toEqual({ kind: "guest", nick: "Ada" });
    expect(joinRequestOf("login", fields)).toEqual({ kind: "login", name: "ada_account", password: "pass word " });
    expect(joinRequestOf("register", fields)).toEqual({
      kind: "register",
      name: "ada_account",
      password: "pass word ",
      nick: "Ada",
    });
    expect(joinRequestOf("login", { ...fields, name: "  " })).toBe("Enter your account name.");
    expect(joinRequestOf("login", { ...fields, password: "" })).toBe("Enter your password.");
    expect(joinRequestOf("register", { ...fields, nick: "" })).toBe("Choose the name others will see in the caves.");
  });
});

describe("the account API's answers", () => {
  const answer = (status: number, body: unknown) => async () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  const joined = { token: "00000000000000ff", entityId: 5, protocolVersion: 1, udpPort: 7777 };

  it("posts the request and reads the session, its nick from the answer when the server gives one", async () => {
    const requests: [string, unknown][] = [];
    const fetchFn = async (url: string, init?: RequestInit) => {
      requests.push([url, JSON.parse(init?.body as string)]);
      return answer(200, joined)();
    };
    const login = await joinAccount("http://host/", { kind: "login", name: "ada", password: "secret pw" }, fetchFn);
    expect(login).toEqual({ nick: "ada", token: 0xffn, entityId: 5, protocolVersion: 1, udpPort: 7777 });
    // It names what it reads beyond the seed's packets (docs/protocol.md § 19.1).
    expect(requests).toEqual([
      ["http://host/api/login", { name: "ada", password: "secret pw", reads: ["chunk_wide"] }],
    ]);
    const named = await joinAccount(
      "http://host",
      { kind: "login", name: "ada", password: "x" },
      answer(200, {
        ...joined,
        nick: "Ada A",
      }),
    );
    expect(named.nick).toBe("Ada A");
    const registered = await joinAccount(
      "http://host",
      { kind: "register", name: "ada", password: "secret pw", nick: "Ada" },
      answer(200, joined),
    );
    expect(registered.nick).toBe("Ada");
  });

  it("turns refusals and nonsense into SessionErrors with the status", async () => {
    const fail = (fetchFn: () => Promise<Response>) =>
      joinAccount("http://host", { kind: "login", name: "a", password: "b" }, fetchFn).catch((error: unknown) => error);
    expect(await fail(answer(401, { error: "wrong name or password" }))).toEqual(
      new SessionError("login: wrong name or password", 401),
    );
    const mismatch = (await fail(answer(200, { ...joined, protocolVersion: 2 }))) as SessionError;
    expect([mismatch.status, mismatch.message]).toEqual([0, "login: server speaks protocol 2, this client 1"]);
    expect(((await fail(answer(200, { ...joined, token: "xyz" }))) as SessionError).status).toBe(0);
    const offline = (await fail(async () => Promise.reject(new TypeError("Failed to fetch")))) as SessionError;
    expect([offline.status, offline.message]).toEqual([0, "login: TypeError: Failed to fetch"]);
  });
});

describe("account refusals in plain words", () => {
  const server = "http://127.0.0.1:8080";
  const explain = (message: string, status: number) => explainJoinError(new SessionError(message, status), server);

  it("explains each status the account routes answer", () => {
    expect(explain("register: password must be at least 8 characters", 400)).toBe(
      "The server did not accept that: Password must be at least 8 characters.",
    );
    expect(explain("login: wrong name or password", 401)).toBe(
      "Wrong account name or password. Check both and try again.",
    );
    expect(explain("login: account banned: griefing", 403)).toBe(
      "You cannot log in with this account: Account banned: griefing.",
    );
    expect(explain('register: name "Ada" is taken', 409)).toBe(
      "That account name is taken. Choose another, or log in if it is yours.",
    );
    expect(explain("login: server full", 503)).toMatch(/^The server is full right now/);
    expect(explain("register: account created, but the server is full now: log in later", 503)).toBe(
      "Your account was created, but the server is full right now. Log in a little later.",
    );
    expect(explain("login: TypeError: Failed to fetch", 0)).toBe(
      "Cannot reach the game server at http://127.0.0.1:8080. Is it running? (TypeError: Failed to fetch)",
    );
    expect(explain("register: server speaks protocol 3, this client 1", 0)).toMatch(/^This page is out of date/);
    // Guests keep their words.
    expect(explain("join: nick must not be empty", 400)).toBe(
      "The server did not accept that nick: Nick must not be empty.",
    );
  });
});
