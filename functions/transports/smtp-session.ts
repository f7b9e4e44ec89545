import { connect as netConnect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

/**
 * The SMTP protocol of one relay session, over nodemailer's `smtp-connection`: the TCP connection to
 * a checked address, the greeting with EHLO and STARTTLS, AUTH, the envelope with DATA and the final
 * dot, QUIT; and the reply timers that bound each of them. It reports what happened (the relay's
 * errors as nodemailer raises them, whether the final dot may have been written, whether a timer or
 * the deadline ended the session); what that means for the send is the policy of smtp.transport.ts.
 */

/** The per-phase timeouts (milliseconds); the deadline over all of them is the session's signal. */
export interface SessionTimeouts {
  connect: number;
  /** Silence allowed while waiting for any reply before the final dot. */
  command: number;
  /** Silence allowed for the reply to the final dot. */
  dotReply: number;
}

/** What the session saw, read by the policy once a phase has ended. */
export interface SessionState {
  /** The whole message reached nodemailer's dot-stuffing stream: the final dot may be out. */
  dotWritten: boolean;
  /** A reply timer (or the connect timer) fired. */
  timedOut: boolean;
  /** The session's deadline was reached. */
  aborted: boolean;
  lastCommand: string;
  /** EHLO advertised STARTTLS. */
  starttlsOffered: boolean;
}

/** An error as nodemailer raises it (the fields the policy reads). */
export interface SmtpErrorLike {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
  recipient?: string;
  rejectedErrors?: SmtpErrorLike[];
}

/** Where and how to connect: the checked address, the name TLS verifies, the EHLO name. */
export interface RelayConnection {
  ip: string;
  port: number;
  /** The configured host name: the certificate is verified against it, never against the IP. */
  servername: string;
  implicitTls: boolean;
  ehloName: string;
  tlsCa?: string[];
}

export interface SessionMessage {
  from: string;
  to: string[];
  raw: Uint8Array;
}

type Done<T> = (err?: Error | null, value?: T) => void;

export class SmtpSession {
  readonly state: SessionState = {
    dotWritten: false,
    timedOut: false,
    aborted: false,
    lastCommand: '',
    starttlsOffered: false,
  };
  private socket: Socket | undefined;
  private conn: SMTPConnection | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Rejects when nodemailer reports a lost connection only through 'error'/'end'. */
  private lost: Promise<never> = new Promise<never>(() => {});
  private readonly onAbort = () => this.kill('abort');

  constructor(
    private readonly timeouts: SessionTimeouts,
    private readonly signal: AbortSignal,
  ) {}

  /** Starts listening for the deadline; false when it has already passed (nothing is opened). */
  begin(): boolean {
    if (this.signal.aborted) return false;
    this.signal.addEventListener('abort', this.onAbort, { once: true });
    return true;
  }

  /** TCP to the checked address, then nodemailer's connection over it; nothing is sent yet. */
  async open(relay: RelayConnection): Promise<void> {
    const socket = await this.connectSocket(relay.ip, relay.port);
    if (this.state.aborted) throw Object.assign(new Error('deadline reached'), { code: 'ABORT_ERR' });
    socket.on('error', () => {}); // nodemailer reports socket errors itself
    const c = new SMTPConnection({
      connection: socket,
      host: relay.ip,
      port: relay.port,
      secure: relay.implicitTls,
      requireTLS: !relay.implicitTls,
      name: relay.ehloName,
      greetingTimeout: this.timeouts.command,
      connectionTimeout: this.timeouts.connect + 2 * this.timeouts.command,
      // nodemailer's own inactivity timer stays behind ours (which knows about the final dot).
      socketTimeout: this.timeouts.dotReply + this.timeouts.command,
      transactionLog: true,
      logger: this.observer(),
      tls: {
        servername: relay.servername,
        minVersion: 'TLSv1.2',
        ...(relay.tlsCa?.length ? { ca: relay.tlsCa } : {}),
      },
      ...{ servername: relay.servername },
    } as SMTPConnection.Options);
    this.conn = c;
    this.lost = new Promise<never>((_, reject) => {
      c.once('error', reject);
      c.once('end', () => reject(Object.assign(new Error('connection closed'), { code: 'ECONNECTION' })));
    });
    this.lost.catch(() => {});
  }

  /** The greeting, EHLO and (unless TLS is implicit) STARTTLS with the second EHLO. */
  greet(): Promise<void> {
    this.arm(this.timeouts.command); // the greeting
    return this.step<void>((done) => this.connection().connect((err?: Error) => done(err)));
  }

  login(auth: SMTPConnection.AuthenticationCredentials): Promise<void> {
    return this.step<void>((done) => this.connection().login(auth, (err?: Error | null) => done(err)));
  }

  /**
   * MAIL FROM (SIZE= when offered), RCPT TO each, DATA, the message unchanged, the final dot. Once
   * per envelope: `dotWritten` is this envelope's.
   */
  async send(message: SessionMessage): Promise<SMTPConnection.SentMessageInfo> {
    this.state.dotWritten = false;
    const body = new PassThrough();
    body.once('end', () => {
      // The whole message is in nodemailer's dot-stuffing stream; the dot follows at once.
      this.state.dotWritten = true;
      this.arm(this.timeouts.dotReply);
    });
    body.end(Buffer.from(message.raw.buffer, message.raw.byteOffset, message.raw.byteLength));
    const envelope = { from: message.from, to: message.to, size: message.raw.byteLength };
    try {
      return await this.step<SMTPConnection.SentMessageInfo>((done) =>
        this.connection().send(envelope, body, (err, info) => done(err, info)),
      );
    } finally {
      this.disarm();
    }
  }

  /** RSET: the next envelope starts clean after one the relay refused (RFC 5321 § 4.1.1.5). */
  reset(): Promise<void> {
    return this.step<void>((done) => this.connection().reset((err) => done(err)));
  }

  /** Writes QUIT (a session that ended cleanly). */
  quit(): void {
    this.conn?.quit();
  }

  /** Stops the timers and the deadline; the socket is closed a second later in any case. */
  close(): void {
    this.disarm();
    this.signal.removeEventListener('abort', this.onAbort);
    setTimeout(() => {
      this.conn?.close();
      this.socket?.destroy();
    }, 1000).unref();
  }

  private connectSocket(host: string, port: number): Promise<Socket> {
    return new Promise<Socket>((resolve, reject) => {
      const s = netConnect({ host, port });
      this.socket = s;
      const t = setTimeout(() => {
        this.state.timedOut = true;
        s.destroy();
        reject(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' }));
      }, this.timeouts.connect);
      s.once('connect', () => {
        clearTimeout(t);
        s.removeAllListeners('error');
        resolve(s);
      });
      s.once('error', (err) => {
        clearTimeout(t);
        reject(err);
      });
    });
  }

  /**
   * nodemailer fails a pending step either through its callback or (a lost connection) only with
   * 'error'/'end': every step races against those, so no step waits forever.
   */
  private step<T>(run: (done: Done<T>) => void): Promise<T> {
    return Promise.race([
      new Promise<T>((resolve, reject) => run((err, value) => (err ? reject(err) : resolve(value as T)))),
      this.lost,
    ]);
  }

  /**
   * A protocol observer on nodemailer's transaction log (commands and replies only, never the
   * message): it arms the per-reply timer and sees whether EHLO offered STARTTLS.
   */
  private observer() {
    const quiet = () => {};
    return {
      level: quiet,
      trace: quiet,
      info: quiet,
      warn: quiet,
      error: quiet,
      fatal: quiet,
      debug: (entry: { tnx?: string } | undefined, text: unknown) => {
        const line = String(text ?? '');
        if (entry?.tnx === 'client') {
          this.state.lastCommand = line.split(' ')[0]?.toUpperCase() ?? '';
          this.arm(this.timeouts.command);
        } else if (entry?.tnx === 'server') {
          if (this.state.lastCommand === 'EHLO' && /[ -]STARTTLS\b/im.test(line))
            this.state.starttlsOffered = true;
          this.disarm();
        }
      },
    };
  }

  private connection(): SMTPConnection {
    if (!this.conn) throw new Error('the SMTP session is not open');
    return this.conn;
  }

  private kill(why: 'timeout' | 'abort'): void {
    if (why === 'timeout') this.state.timedOut = true;
    else this.state.aborted = true;
    // Destroying the socket (not close()) makes nodemailer fail whatever is pending with an error.
    this.socket?.destroy();
  }

  private arm(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kill('timeout'), ms);
  }

  private disarm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
