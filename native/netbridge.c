/*
 * netbridge: the one way out of a container teammate's network (docs/containers.md, "Network").
 *
 * The container runs with network `none`: only its own loopback. This program listens on
 * 127.0.0.1:<port> there and carries every connection made to it over its own stdin and stdout,
 * which are the engine's exec stream to the Agent Teams host. The host hands each connection to
 * the product's HTTP proxy, which judges the host asked for (allowed domains, one question per
 * host) exactly as for a sandboxed command. Nothing here decides anything: a program in the
 * container that replaced or imitated this one could only send the host more proxy requests.
 *
 * Frames, both ways: type (1 byte) | stream id (4 bytes, big-endian) | length (4, big-endian) | payload
 *   'R' ready   bridge -> host, once, when it listens
 *   'O' open    bridge -> host, a new connection
 *   'D' data    both ways (at most CHUNK bytes)
 *   'E' end     both ways: that side sends no more (the other side's write half is shut)
 *   'C' close   both ways: the connection is gone (reset, or both halves ended)
 *
 * One thread and poll(). Writes block: a reader that stalls stalls the bridge, so memory stays
 * bounded on both ends (back-pressure through the exec stream). Static, libc only, so it runs in
 * any Linux image of its architecture. Built by scripts/build-netbridge.mjs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_STREAMS 256
#define CHUNK 32768
#define MAX_FRAME (1 << 20)

struct stream {
  int fd;          /* -1: free slot */
  uint32_t id;
  int reading;     /* the client may still send */
  int writing;     /* the host may still send */
};

static struct stream streams[MAX_STREAMS];
static uint32_t next_id = 1;
static unsigned char buf[MAX_FRAME];

static int write_all(int fd, const void *p, size_t n) {
  const unsigned char *b = p;
  while (n > 0) {
    ssize_t w = write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    b += w;
    n -= (size_t)w;
  }
  return 0;
}

/* 1: read n bytes; 0: end of input first; -1: error. */
static int read_all(int fd, void *p, size_t n) {
  unsigned char *b = p;
  while (n > 0) {
    ssize_t r = read(fd, b, n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) return 0;
    b += r;
    n -= (size_t)r;
  }
  return 1;
}

/* A frame to the host; the host gone ends the bridge (and with it every connection). */
static void frame(char type, uint32_t id, const void *p, uint32_t n) {
  unsigned char h[9];
  h[0] = (unsigned char)type;
  h[1] = id >> 24; h[2] = id >> 16; h[3] = id >> 8; h[4] = id;
  h[5] = n >> 24; h[6] = n >> 16; h[7] = n >> 8; h[8] = n;
  if (write_all(1, h, 9) < 0 || (n && write_all(1, p, n) < 0)) exit(0);
}

static struct stream *find(uint32_t id) {
  for (int i = 0; i < MAX_STREAMS; i++)
    if (streams[i].fd >= 0 && streams[i].id == id) return &streams[i];
  return NULL;
}

static void drop(struct stream *s, int tell) {
  if (tell) frame('C', s->id, NULL, 0);
  close(s->fd);
  s->fd = -1;
}

static int listen_on(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  /* A bridge of a host that went away may hold the port for a moment: tried for 5 s. */
  for (int tries = 0; tries < 50; tries++) {
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 128) == 0) return fd;
    if (errno != EADDRINUSE) break;
    struct timespec t = {0, 100 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
  close(fd);
  return -1;
}

/* One frame from the host. Returns 0 when the host has gone. */
static int from_host(void) {
  unsigned char h[9];
  int r = read_all(0, h, 9);
  if (r <= 0) return 0;
  uint32_t id = (uint32_t)h[1] << 24 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 8 | h[4];
  uint32_t n = (uint32_t)h[5] << 24 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 8 | h[8];
  if (n > MAX_FRAME) {
    fprintf(stderr, "netbridge: a frame of %u bytes from the host\n", n);
    exit(3);
  }
  if (n && read_all(0, buf, n) <= 0) return 0;
  struct stream *s = find(id);
  if (!s) return 1; /* a connection that has gone meanwhile */
  switch (h[0]) {
    case 'D':
      if (s->writing && write_all(s->fd, buf, n) < 0) drop(s, 1);
      break;
    case 'E':
      s->writing = 0;
      shutdown(s->fd, SHUT_WR);
      if (!s->reading) drop(s, 1);
      break;
    case 'C':
      drop(s, 0);
      break;
    default:
      break;
  }
  return 1;
}

static void accept_one(int lfd) {
  int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
  if (fd < 0) return;
  for (int i = 0; i < MAX_STREAMS; i++) {
    if (streams[i].fd >= 0) continue;
    streams[i] = (struct stream){ .fd = fd, .id = next_id++, .reading = 1, .writing = 1 };
    if (next_id == 0) next_id = 1;
    frame('O', streams[i].id, NULL, 0);
    return;
  }
  close(fd); /* MAX_STREAMS connections already: refused */
}

static void from_client(struct stream *s) {
  ssize_t n = read(s->fd, buf, CHUNK);
  if (n < 0 && errno == EINTR) return;
  if (n > 0) { frame('D', s->id, buf, (uint32_t)n); return; }
  if (n < 0) { drop(s, 1); return; }
  s->reading = 0;
  frame('E', s->id, NULL, 0);
  if (!s->writing) drop(s, 1);
}

int main(int argc, char **argv) {
  int port = argc > 1 ? atoi(argv[1]) : 0;
  if (port <= 0 || port > 65535) {
    fprintf(stderr, "usage: netbridge <port>\n");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  for (int i = 0; i < MAX_STREAMS; i++) streams[i].fd = -1;
  int lfd = listen_on(port);
  if (lfd < 0) {
    fprintf(stderr, "netbridge: cannot listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
    return 1;
  }
  frame('R', 0, NULL, 0);
  struct pollfd p[MAX_STREAMS + 2];
  struct stream *who[MAX_STREAMS + 2];
  for (;;) {
    int n = 0;
    p[n] = (struct pollfd){ .fd = 0, .events = POLLIN }; who[n++] = NULL;
    p[n] = (struct pollfd){ .fd = lfd, .events = POLLIN }; who[n++] = NULL;
    for (int i = 0; i < MAX_STREAMS; i++) {
      if (streams[i].fd < 0 || !streams[i].reading) continue;
      p[n] = (struct pollfd){ .fd = streams[i].fd, .events = POLLIN };
      who[n++] = &streams[i];
    }
    if (poll(p, (nfds_t)n, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      if (!from_host()) return 0;
      continue; /* the slots may have changed: poll again */
    }
    for (int i = 2; i < n; i++)
      if (who[i]->fd == p[i].fd && (p[i].revents & (POLLIN | POLLHUP | POLLERR))) from_client(who[i]);
    /* Last: a slot freed above may be taken now, and its new socket has not been polled. */
    if (p[1].revents & POLLIN) accept_one(lfd);
  }
}
