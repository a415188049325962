import type { AnthropicVertex } from '@anthropic-ai/vertex-sdk';

/** google-auth-library's AuthClient, as both Vertex SDKs take it (`authClient`, `googleAuthOptions.authClient`). */
export type VertexAuthClient = NonNullable<NonNullable<ConstructorParameters<typeof AnthropicVertex>[0]>['authClient']>;

/**
 * An auth client that sends one fixed OAuth access token and never calls Google's token
 * endpoint, for AGENT_EVAL_VERTEX_ACCESS_TOKEN: tests against a local Vertex stand-in, or a
 * short-lived token from `gcloud auth print-access-token`. Without that variable the SDKs use
 * application default credentials. Both SDKs only ask the client for request headers (and the
 * project), so this is all of the AuthClient they use.
 */
export function fixedTokenAuthClient(token: string, projectId: string): VertexAuthClient {
  const client = {
    projectId,
    getRequestHeaders: () => Promise.resolve(new Headers({ authorization: `Bearer ${token}` })),
    getAccessToken: () => Promise.resolve({ token }),
  };
  // A structural stand-in for google-auth-library's class: see the comment above.
  return client as unknown as VertexAuthClient;
}
