// Runs the conformance suite (built for node 22) on node 20, its servers on 127.0.0.1 only.
export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (url.includes('@modelcontextprotocol/conformance/dist/index.js')) {
    let source = String(result.source).replace(/^#!.*\n/, '');
    source = source.replace('globSync as o,', '');
    source = source.replace(
      'async start(e){return this.app=e,this.httpServer=this.app.listen(0),this.baseUrl=`http://localhost:${this.httpServer.address().port}`,this.baseUrl}',
      "async start(e){this.app=e;this.httpServer=this.app.listen(0,'127.0.0.1');await new Promise(r=>this.httpServer.once('listening',r));this.baseUrl=`http://127.0.0.1:${this.httpServer.address().port}`;return this.baseUrl}");
    source = "const o=(p)=>{throw new Error('globSync is not available on node 20')};\n" + source;
    return { ...result, source, shortCircuit: true };
  }
  return result;
}
