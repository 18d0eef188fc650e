/** A plain-HTTP GET (probes, /metrics) answered as its status and body text, with a bounded wait. */
import http from 'node:http';

export function httpText(host: string, port: number, urlPath: string, timeoutMs = 5000): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host, port, path: urlPath, agent: false, timeout: timeoutMs }, (res) => {
        let text = '';
        res.on('data', (chunk) => (text += String(chunk)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      })
      .on('error', reject)
      .on('timeout', function (this: http.ClientRequest) {
        this.destroy(new Error(`GET http://${host}:${port}${urlPath} timed out`));
      });
  });
}
