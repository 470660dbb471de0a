<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AcrossMachinesView</name>
    <message>
        <location filename="../../desktop/ui/widgets/across_machines.py" line="+78"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Model to compare across machines</source>
        <translation>要跨机器对比的模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Settings the answers ran with</source>
        <translation>回答运行时使用的设置</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>The same model on each machine</source>
        <translation>同一模型在各台机器上的表现</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Nothing to put side by side yet. Import results from another machine (Import… on the list, or drop the file there), and run the same model here with the same settings: each machine gets a column.</source>
        <translation>还没有可以并排对比的内容。请导入另一台机器的结果（在列表页点击“导入…”，或把文件拖到那里），并在本机用相同设置运行同一个模型：每台机器占一列。</translation>
    </message>
    <message>
        <location line="+78"/>
        <source>Only %1 ran this model with these settings. Medians of its stored answers.</source>
        <translation>只有 %1 用这些设置运行过这个模型。数值为其已保存回答的中位数。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Medians of the stored answers of this model with these settings on each machine; each machine&apos;s own threads.</source>
        <translation>每台机器上这个模型在这些设置下已保存回答的中位数；线程数为各机器自己的设置。</translation>
    </message>
    <message>
        <location line="+16"/>
        <location line="+16"/>
        <source>%1 (%2 machines)</source>
        <translation>%1（%2 台机器）</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Estimates for %1</source>
        <translation>按 %1 估算</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Make %1 the profile every page estimates for, calibrated by its own runs.</source>
        <translation>把 %1 设为所有页面估算所用的配置，并用它自己的运行结果校准。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>context %1</source>
        <translation>上下文 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU layers %1</source>
        <translation>GPU 层数 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>KV %1</source>
        <translation>KV %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>flash attention on</source>
        <translation>Flash Attention 开</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>flash attention off</source>
        <translation>Flash Attention 关</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>settings not recorded</source>
        <translation>未记录设置</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Answers</source>
        <translation>回答数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Generation</source>
        <translation>生成速度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Prompt processing</source>
        <translation>提示词处理速度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Time to first token</source>
        <translation>首个 token 用时</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Peak memory (RSS)</source>
        <translation>内存峰值（RSS）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Peak VRAM</source>
        <translation>显存峰值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Threads</source>
        <translation>线程数</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+3"/>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Quality: %1</source>
        <translation>质量：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Quality</source>
        <translation>质量</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>%1, %2 threads</source>
        <translation>%1，%2 线程</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>by its own runs here</source>
        <translation>由本机自己的运行校准</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not yet (no runs)</source>
        <translation>尚未校准（没有运行记录）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>from %1 runs measured there</source>
        <translation>根据该机器上的 %1 次实测运行</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory bandwidth</source>
        <translation>内存带宽</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Estimates calibrated</source>
        <translation>估算校准</translation>
    </message>
</context>
<context>
    <name>CalibrationCard</name>
    <message>
        <location filename="../../desktop/ui/widgets/calibration_card.py" line="+34"/>
        <source>Calibration</source>
        <translation>校准</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>none yet: every answer and benchmark records one</source>
        <translation>暂无：每次回答和基准测试都会记录一次</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 stored: %2 count, %3 left out</source>
        <translation>已存 %1 次：%2 次计入，%3 次未计入</translation>
    </message>
    <message>
        <location line="+7"/>
        <location line="+58"/>
        <location line="+4"/>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <location line="-59"/>
        <source>Runs made while other programs used the CPU never count: they say how busy the machine was, not how fast the model runs.</source>
        <translation>其他程序占用 CPU 时的运行从不计入：它们反映的是机器有多忙，而不是模型跑得多快。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Undo last run</source>
        <translation>撤销最近一次</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Forget the newest run (for example one made while the machine was busy).</source>
        <translation>忘掉最近一次运行（例如机器繁忙时做的那次）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Reset…</source>
        <translation>重置…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Forget every run of this machine; the estimates go back to the raw model.</source>
        <translation>忘掉本机的所有运行；估算恢复为未校准的模型。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Speed on the CPU</source>
        <translation>CPU 上的速度</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Measured generation speed against the model&apos;s estimate, on the CPU.</source>
        <translation>CPU 上实测生成速度与模型估算之比。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Speed on the GPU</source>
        <translation>GPU 上的速度</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+24"/>
        <source>not yet (%1 of 2 runs)</source>
        <translation>尚未生效（2 次中已有 %1 次）</translation>
    </message>
    <message>
        <location line="-20"/>
        <source>%1 against the estimate, from %2 runs</source>
        <translation>比估算 %1，来自 %2 次运行</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>none: this profile carries no calibration</source>
        <translation>无：此配置文件不带校准</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 runs of that machine, carried in its profile</source>
        <translation>该机器的 %1 次运行，随其配置文件携带</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>×%1 the estimate, from %2 runs</source>
        <translation>估算的 ×%1，来自 %2 次运行</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1 t/s</source>
        <translation>%1 t/s</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>memory only</source>
        <translation>仅计入内存</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>counts</source>
        <translation>计入</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>speed left out: other programs used %1 CPUs meanwhile</source>
        <translation>速度未计入：期间其他程序占用了 %1 个 CPU</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>speed left out: the machine was busy</source>
        <translation>速度未计入：机器当时繁忙</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>left out: part on the GPU, part on the CPU</source>
        <translation>未计入：部分在 GPU、部分在 CPU 上</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>left out: too short to say</source>
        <translation>未计入：太短，说明不了问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>left out: no speed measured</source>
        <translation>未计入：未测得速度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>left out: implausible speed</source>
        <translation>未计入：速度不合理</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>left out: older than the newest runs</source>
        <translation>未计入：早于最近的运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>left out: far from the other runs</source>
        <translation>未计入：与其他运行相差太远</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>left out</source>
        <translation>未计入</translation>
    </message>
</context>
<context>
    <name>CatalogCells</name>
    <message>
        <location filename="../../desktop/ui/models/catalog_model.py" line="+395"/>
        <source>%1 parameters in all, %2 active per token (mixture of experts).</source>
        <translation>共 %1 参数，每个 token 激活 %2（混合专家模型）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 parameters.</source>
        <translation>%1 参数。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 files from %2</source>
        <translation>%1 个文件，来自 %2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Size checked against the Hub.</source>
        <translation>大小已与 Hub 核对。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Estimated from the model&apos;s shapes and the quant&apos;s tensor types, not verified against the Hub (`llm-scout catalog refresh` checks it).</source>
        <translation>根据模型结构和该量化方式的张量类型估算，尚未与 Hub 核对（`llm-scout catalog refresh` 会核对）。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Commercial use allowed.</source>
        <translation>允许商用。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Not for commercial use.</source>
        <translation>不可商用。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Speaks Chinese.</source>
        <translation>支持中文。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Needs, with the whole context of %1 tokens in use: %2 of RAM and %3 of video memory (predicted).</source>
        <translation>在用满 %1 个词元的全部上下文时需要：%2 内存和 %3 显存（预测）。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>From the downloaded file&apos;s header.</source>
        <translation>来自已下载文件的文件头。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Predicted generation speed, from memory bandwidth.</source>
        <translation>根据内存带宽预测的生成速度。</translation>
    </message>
</context>
<context>
    <name>CatalogFilterBar</name>
    <message>
        <location filename="../../desktop/ui/widgets/catalog_filter_bar.py" line="+72"/>
        <source>Context length</source>
        <extracomment>The context slider&apos;s stops (tokens); the spin box next to it takes any value.</extracomment>
        <translation>上下文长度</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Context length: how many tokens of prompt and answer the model keeps. The KV cache grows with it. Stops: %1; type any value in the box.</source>
        <translation>上下文长度：模型能同时记住的提示词和回答的 token 数，KV 缓存随之增大。滑块档位：%1；也可以在输入框里填任意值。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Context length in tokens</source>
        <translation>上下文长度（token）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The exact context length in tokens.</source>
        <translation>精确的上下文长度（token 数）。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>qwen 7b q4</source>
        <translation>qwen 7b q4</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Search models</source>
        <translation>搜索模型</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Every word must begin a word of the model&apos;s name, family, tags or quant.</source>
        <translation>每个搜索词都要与模型名称、系列、标签或量化中某个词的开头相符。</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+48"/>
        <source>Family</source>
        <translation>系列</translation>
    </message>
    <message>
        <location line="-47"/>
        <source>All families</source>
        <translation>全部系列</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+43"/>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <location line="-42"/>
        <source>All formats</source>
        <translation>全部格式</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>GGUF runs with llama.cpp (CPU and GPU); AWQ with vLLM on NVIDIA GPUs.</source>
        <translation>GGUF 由 llama.cpp 运行（CPU 和 GPU 均可）；AWQ 需要在 NVIDIA GPU 上用 vLLM 运行。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Fits only</source>
        <translation>仅显示可运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hide the variants that do not fit (verdict no).</source>
        <translation>隐藏放不下的变体（判定为“放不下”）。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fully on GPU</source>
        <translation>完全在 GPU 上</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Only variants with every layer on the GPU.</source>
        <translation>只显示所有层都能放进 GPU 的变体。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Commercial use</source>
        <translation>可商用</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Only licences that allow commercial use.</source>
        <translation>只显示许可证允许商用的模型。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>中文 Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Only models that speak Chinese well.</source>
        <translation>只显示中文能力好的模型。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Estimating</source>
        <translation>正在估算</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location line="+88"/>
        <source>%1 of %2 variants</source>
        <translation>%1 / %2 个变体</translation>
    </message>
</context>
<context>
    <name>CatalogTableModel</name>
    <message>
        <location filename="../../desktop/ui/models/catalog_model.py" line="-278"/>
        <source>Estimating…</source>
        <translation>正在估算…</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 tokens is past the %2 the model was trained for; answers may degrade.</source>
        <translation>%1 个 token 超出了模型训练时的 %2；回答质量可能下降。</translation>
    </message>
    <message>
        <location line="+91"/>
        <source>There are not enough facts about this variant to estimate it.</source>
        <extracomment>Columns that follow the estimate (the rest only change when the catalog does). The catalog&apos;s sort key behind each catalog column. per row, the roles of each of :attr:`CatalogCells.ESTIMATE_COLUMNS`, in that order What an estimate changes: the fit&apos;s columns, and the size (an unverified size is the one the fit computed from the shapes).</extracomment>
        <translation>关于这个版本的信息不足，无法估算。</translation>
    </message>
    <message>
        <location line="+295"/>
        <source>Family</source>
        <translation>系列</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Params</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quant</source>
        <translation>量化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Verdict</source>
        <translation>判定</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory</source>
        <translation>所需内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>On disk</source>
        <translation>已下载</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>中文</source>
        <translation>中文</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The model family (who trained it).</source>
        <translation>模型系列（由谁训练）。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model&apos;s name in the catalog.</source>
        <translation>模型在目录中的名称。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Parameters. For a mixture of experts, the active parameters per token follow in brackets (A3.3B): speed follows those, memory the total.</source>
        <translation>参数量。混合专家（MoE）模型在括号里注明每个 token 的激活参数（A3.3B）：速度取决于激活参数，内存取决于总参数。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Quantization: how many bits each weight keeps (Q4_K_M about 4.8, Q8_0 about 8.5). AWQ models are 4-bit safetensors for vLLM on NVIDIA GPUs, not GGUF.</source>
        <translation>量化：每个权重保留多少位（Q4_K_M 约 4.8 位，Q8_0 约 8.5 位）。AWQ 模型是供 NVIDIA GPU 上的 vLLM 使用的 4 位 safetensors，不是 GGUF。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Download size. %1 marks a size estimated from the model&apos;s shapes, not verified against the Hub (`llm-scout catalog refresh` checks it).</source>
        <translation>下载大小。%1 表示该大小是根据模型形状估算的，未经 Hub 核实（`llm-scout catalog refresh` 会核实）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Where it would run here at %1 tokens of context: GPU (every layer on the GPU), partial N/M (N of M layers on the GPU), CPU (in RAM) or no (does not fit). %2 marks a context longer than the model was trained for.</source>
        <translation>在 %1 个 token 的上下文下，它在这台机器上会在哪里运行：GPU（所有层都在 GPU 上）、部分 N/M（M 层中有 N 层在 GPU 上）、CPU（在内存中）或放不下。%2 表示上下文超出了模型训练时的长度。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Predicted memory (%1) for a run at %2 tokens of context: RAM and video memory together. The detail panel splits it.</source>
        <translation>在 %2 个 token 的上下文下运行的预测内存占用（%1）：内存和显存合计。详情面板中有分项。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Predicted generation speed in tokens per second (%1): a memory-bandwidth estimate, calibrated on real runs.</source>
        <translation>预测的生成速度，单位为每秒 token 数（%1）：根据内存带宽估算，并用实际运行结果校准过。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Whether the files are on this machine (downloaded or found by the library).</source>
        <translation>文件是否已在本机上（已下载，或已被本地模型库找到）。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The licence; the tooltip says whether commercial use is allowed.</source>
        <translation>许可证；悬停提示会说明是否允许商用。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Whether the model speaks Chinese well (中文).</source>
        <translation>模型的中文能力是否好（中文）。</translation>
    </message>
</context>
<context>
    <name>ChartImage</name>
    <message>
        <location filename="../../desktop/ui/widgets/chart_image.py" line="+22"/>
        <source>Comparison</source>
        <translation>对比</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Suite %1, %2 prompts</source>
        <translation>提示词集 %1，%2 个提示词</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Prompt: %1</source>
        <translation>提示词：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 prompts</source>
        <translation>%1 个提示词</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
</context>
<context>
    <name>ChatPanel</name>
    <message>
        <location filename="../../desktop/ui/widgets/chat_panel.py" line="+48"/>
        <source>System prompt and sampling</source>
        <translation>系统提示词与采样</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Write a message; Ctrl+Enter sends it, Esc stops the answer.</source>
        <translation>输入消息；Ctrl+Enter 发送，Esc 停止回答。</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Send the message (Ctrl+Enter).</source>
        <translation>发送消息（Ctrl+Enter）。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stop the answer (Esc); what came is kept.</source>
        <translation>停止回答（Esc）；已生成的内容会保留。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ask the last message again.</source>
        <translation>重新发送上一条消息。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Forget the conversation (the model stays loaded).</source>
        <translation>清空对话（模型仍保持加载）。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Copy the conversation as Markdown.</source>
        <translation>以 Markdown 格式复制对话。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Save…</source>
        <translation>保存…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save the conversation as Markdown or JSON, with the settings and metrics.</source>
        <translation>将对话连同设置和指标保存为 Markdown 或 JSON。</translation>
    </message>
</context>
<context>
    <name>ChatSettingsPanel</name>
    <message>
        <location filename="../../desktop/ui/widgets/chat_settings.py" line="+44"/>
        <location line="+3"/>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>You are a helpful assistant.</source>
        <translation>你是一个乐于助人的助手。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>0 always picks the likeliest token.</source>
        <translation>为 0 时总是选择概率最高的 token。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>1.0: no penalty.</source>
        <translation>1.0：不惩罚。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>random</source>
        <translation>随机</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The same seed and settings give the same answer.</source>
        <translation>相同的种子和设置会得到相同的回答。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The most tokens one answer may have.</source>
        <translation>一次回答最多可生成的 token 数。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Max tokens</source>
        <translation>最大 token 数</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Defaults</source>
        <translation>恢复默认</translation>
    </message>
</context>
<context>
    <name>ChatTranscript</name>
    <message>
        <location filename="../../desktop/ui/widgets/chat_transcript.py" line="+64"/>
        <source>Waiting for the first token…</source>
        <translation>正在等待第一个 token…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Generating…</source>
        <translation>正在生成…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The server cannot be reached; Reload connects again.</source>
        <translation>无法连接服务器；点击“重新加载”再次连接。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The engine stopped; Reload loads the model again.</source>
        <translation>引擎已停止；点击“重新加载”再次加载模型。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Unloaded.</source>
        <translation>已卸载。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The conversation outgrew the context: the %1 oldest turns were dropped, the system prompt kept.</source>
        <translation>对话超出了上下文：已丢弃最早的 %1 轮，系统提示词保留。</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>Chat with %1</source>
        <translation>与 %1 对话</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>a model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>The conversation cannot be saved</source>
        <translation>无法保存对话</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cannot write %1: %2.</source>
        <translation>无法写入 %1：%2。</translation>
    </message>
</context>
<context>
    <name>Compare</name>
    <message>
        <location filename="../../desktop/ui/models/compare_summary.py" line="+42"/>
        <source>%1 W / %2 T / %3 L</source>
        <extracomment>The raw value of a cell (numbers for numeric columns), for tests and sorting.</extracomment>
        <translation>%1 胜 / %2 平 / %3 负</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1 bad</source>
        <translation>都不好 %1</translation>
    </message>
</context>
<context>
    <name>CompareBanner</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_banner.py" line="+46"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>together the models need %1 of %2; %3 is available, %4 after the safety margin</source>
        <translation>这些模型合计需要 %1 %2；可用 %3，扣除安全余量后为 %4</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>GPU %1 needs %2 of VRAM, %3 is free</source>
        <translation>GPU %1 需要 %2 显存，空闲 %3</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Parallel mode refused on %1: %2 Use fair mode, which runs one model at a time.</source>
        <translation>在 %1 上无法使用并行模式：%2 请使用公平模式，一次只运行一个模型。</translation>
    </message>
</context>
<context>
    <name>CompareBoard</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_board.py" line="+73"/>
        <source>Add two to six models with “Add model” — models on this machine, or the same model twice with different settings — type a prompt or pick a suite, and Run.</source>
        <translation>用“添加模型”加入二到六个模型（本机上的模型，或同一个模型配两套不同设置），输入提示词或选择一个提示词集，然后点“运行”。</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Previous prompt</source>
        <translation>上一个提示词</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Prompt shown in the columns</source>
        <translation>各列显示的提示词</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Next prompt</source>
        <translation>下一个提示词</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Tie</source>
        <translation>平局</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>ready · not run yet</source>
        <translation>就绪 · 尚未运行</translation>
    </message>
    <message>
        <location line="+33"/>
        <location line="+35"/>
        <source>Answer %1</source>
        <translation>回答 %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>server %1</source>
        <translation>服务器 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>ctx %1</source>
        <translation>上下文 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>GPU layers %1</source>
        <translation>GPU 层数 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 threads</source>
        <translation>%1 线程</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>KV %1</source>
        <translation>KV %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>temp %1</source>
        <translation>温度 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>seed %1</source>
        <translation>种子 %1</translation>
    </message>
    <message>
        <location line="+84"/>
        <source>queued (fair mode)</source>
        <translation>排队中（公平模式）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>starting (parallel mode)…</source>
        <translation>正在启动（并行模式）…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>loading the model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>answering…</source>
        <translation>正在回答…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>answering prompt %1 of %2</source>
        <translation>正在回答第 %1 / %2 个提示词</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no reason given</source>
        <translation>未给出原因</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>stopped · %1 of %2 answers</source>
        <translation>已停止 · %1 / %2 个回答</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>loaded in %1</source>
        <translation>加载用时 %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1 of %2 answers</source>
        <translation>%1 / %2 个回答</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>not run yet</source>
        <translation>尚未运行</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Speed and memory are shown after Reveal.</source>
        <translation>揭晓后显示速度和内存。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>TTFT %1</source>
        <translation>首 token %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>RAM %1</source>
        <translation>内存 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>VRAM %1</source>
        <translation>显存 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>memory unknown</source>
        <translation>内存未知</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>No answer: %1</source>
        <translation>没有回答：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No answer: the model failed.</source>
        <translation>没有回答：模型运行失败。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Waiting for its turn…</source>
        <translation>正在排队…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Waiting for the first token…</source>
        <translation>正在等待第一个 token…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No answer yet.</source>
        <translation>还没有回答。</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>Both bad</source>
        <translation>都不好</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>All bad</source>
        <translation>都不好</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Which answer is better? (%1 of %2 prompts voted)</source>
        <translation>哪个回答更好？（已对 %1 / %2 个提示词投票）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1 is better</source>
        <translation>%1 更好</translation>
    </message>
</context>
<context>
    <name>CompareChart</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_chart.py" line="+43"/>
        <source>Generation speed against peak memory</source>
        <translation>生成速度与峰值内存</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>peak memory (MiB, RAM + VRAM)</source>
        <translation>峰值内存（MiB，内存 + 显存）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>generation tokens/s</source>
        <translation>生成 tokens/s</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>Up and left is better: faster and smaller.</source>
        <translation>越靠左上越好：更快、更省内存。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Up and left is better: faster and smaller. Marker size: checks passed, else the win rate (hollow: neither known).</source>
        <translation>越靠左上越好：更快、更省内存。标记大小：通过的检查数，没有检查时为胜率（空心：两者都未知）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The chart fills in as answers are measured.</source>
        <translation>随着回答被测量，图表会逐步填充。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Not drawn, memory unknown: %1.</source>
        <translation>未绘出（内存未知）：%1。</translation>
    </message>
</context>
<context>
    <name>CompareColumn</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_column.py" line="+147"/>
        <source>Change this model&apos;s settings</source>
        <translation>修改此模型的设置</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Change settings</source>
        <translation>修改设置</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Take this model out of the comparison</source>
        <translation>将此模型移出对比</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
</context>
<context>
    <name>ComparePage</name>
    <message>
        <location filename="../../desktop/ui/pages/compare.py" line="+296"/>
        <source>A comparison takes two to six models; add them with “Add model”.</source>
        <translation>对比需要二到六个模型；请用“添加模型”加入。</translation>
    </message>
    <message>
        <location line="+85"/>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <location line="+99"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
</context>
<context>
    <name>CompareQuality</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_quality.py" line="+257"/>
        <source>accuracy %1</source>
        <translation>准确率 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>KLD %1</source>
        <translation>KLD %1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>%1 questions</source>
        <translation>%1 道题</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 tokens</source>
        <translation>%1 个 token</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>(stopped early)</source>
        <translation>（提前停止）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>not measured: a model on a server gives no logits to score here</source>
        <translation>未测量：服务器上的模型不提供可在此评分的 logits</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>stopped before it was measured</source>
        <translation>测量前已停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no reason given</source>
        <translation>未说明原因</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Quality: %1</source>
        <translation>质量：%1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>question</source>
        <translation>题</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>chunk</source>
        <translation>分块</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Quality: measuring, %1 %2 of %3</source>
        <translation>质量：测量中，第 %2/%3 %1</translation>
    </message>
</context>
<context>
    <name>CompareResults</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_results.py" line="+62"/>
        <source>Summary</source>
        <translation>汇总</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>CSV</source>
        <translation>CSV</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>JSON</source>
        <translation>JSON</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Chart PNG</source>
        <translation>图表 PNG</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Tables and answers to paste into an issue or a forum post</source>
        <translation>表格和回答，可粘贴到 issue 或论坛帖子中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>One row per model and prompt, for a spreadsheet</source>
        <translation>每个模型和提示词一行，适合电子表格</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Everything, with the summary and the chart&apos;s points</source>
        <translation>全部内容，包括汇总和图表数据点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The chart as an image</source>
        <translation>将图表导出为图片</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Export %1</source>
        <translation>导出 %1</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Summary of the comparison</source>
        <translation>对比汇总</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Speed and memory</source>
        <translation>速度与内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quality and speed</source>
        <translation>质量与速度</translation>
    </message>
</context>
<context>
    <name>CompareSetup</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_setup.py" line="+100"/>
        <source>Add model</source>
        <translation>添加模型</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Add a model on this machine or on a server (two to six); the same model twice compares settings.</source>
        <translation>添加本机或服务器上的模型（二到六个）；同一模型添加两次可比较设置。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>fair</source>
        <translation>公平</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>One model at a time, each alone on the machine.</source>
        <translation>一次运行一个模型，每个模型独占这台机器。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>parallel</source>
        <translation>并行</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>All models at once, only when the fit says they fit together.</source>
        <translation>所有模型同时运行，仅在估算表明它们能同时放下时可用。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Blind</source>
        <translation>盲测</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Hide the names and shuffle the columns; vote on each prompt, then reveal the names with the win rates.</source>
        <translation>隐藏名称并打乱各列顺序；对每个提示词投票，最后揭晓名称和胜率。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Max tokens</source>
        <translation>最大 token 数</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Most tokens per answer</source>
        <translation>每个回答的最大 token 数</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Reveal names</source>
        <translation>揭晓名称</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run only the answers this comparison is missing.</source>
        <translation>只运行这次对比还缺少的回答。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run every prompt on every model (Ctrl+Enter).</source>
        <translation>在每个模型上运行每个提示词（Ctrl+Enter）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Stop the comparison; finished answers are kept and it can be resumed.</source>
        <translation>停止对比；已完成的回答会保留，之后可以继续。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Prompts</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Prompt suite</source>
        <translation>提示词集</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>One prompt (type it here)</source>
        <translation>单个提示词（在此输入）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Import JSONL or CSV…</source>
        <translation>导入 JSONL 或 CSV…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Prompt for every model</source>
        <translation>发给每个模型的提示词</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>One prompt, sent to every model…</source>
        <translation>一个提示词，发给每个模型…</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>base model, not for chat</source>
        <translation>基础模型，不适合对话</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>No models found on this machine</source>
        <translation>本机上没有找到模型</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1
No chat template: most likely a base model, made to continue text. Its replies to questions may be nonsense.</source>
        <translation>%1
没有对话模板：很可能是基础模型，用于续写文本。它对问题的回答可能毫无意义。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Open a GGUF file…</source>
        <translation>打开 GGUF 文件…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A model on a server (OpenAI-compatible)…</source>
        <translation>服务器上的模型（OpenAI 兼容）…</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>%1 (%2 prompts)</source>
        <translation>%1（%2 个提示词）</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>File: %1</source>
        <translation>文件：%1</translation>
    </message>
    <message>
        <location line="+48"/>
        <source>%1 prompts</source>
        <translation>%1 个提示词</translation>
    </message>
    <message>
        <location line="+10"/>
        <location line="+8"/>
        <source>line %1: %2</source>
        <translation>第 %1 行：%2</translation>
    </message>
    <message>
        <location line="-4"/>
        <source>%1 rows skipped</source>
        <translation>跳过了 %1 行</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Parallel: every model loads at once and they answer side by side — done sooner, but they share the machine, so their speeds do not compare. Allowed only when the fit says they fit in memory together.</source>
        <translation>并行：所有模型同时加载并同时回答，完成得更快，但它们共用这台机器，速度不可直接比较。仅在估算表明它们能同时放进内存时可用。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Fair: one model at a time, each alone on the machine, so speeds compare; the others wait in the queue.</source>
        <translation>公平：一次运行一个模型，每个模型独占这台机器，速度可以直接比较；其余模型排队等候。</translation>
    </message>
</context>
<context>
    <name>ComparisonView</name>
    <message>
        <location filename="../../desktop/ui/widgets/comparison_view.py" line="+171"/>
        <source>comparison %1</source>
        <translation>对比 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>fair mode</source>
        <translation>公平模式</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>parallel mode</source>
        <translation>并行模式</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the models shared the machine: speeds do not compare</source>
        <translation>模型同时共用这台机器：速度不可直接比较</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>names, speeds and memory hidden until you reveal them</source>
        <translation>揭晓之前隐藏名称、速度和内存</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Preparing…</source>
        <translation>正在准备…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 of %2 answers</source>
        <translation>%1 / %2 个回答</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>incomplete: Resume runs the rest</source>
        <translation>未完成：点“继续”运行剩下的部分</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>PNG image (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Export the comparison</source>
        <translation>导出对比</translation>
    </message>
</context>
<context>
    <name>ContestantDialog</name>
    <message>
        <location filename="../../desktop/ui/widgets/contestant_dialog.py" line="+60"/>
        <source>Contestant settings</source>
        <translation>参赛模型设置</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Settings left at “default” use the comparison&apos;s own. Add the same model twice with different settings to compare them.</source>
        <translation>保持“默认”的设置沿用本次对比的设置。把同一个模型以不同设置添加两次即可对比这些设置。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Where the model runs</source>
        <translation>模型在哪里运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a server (OpenAI-compatible)</source>
        <translation>服务器（OpenAI 兼容）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Runs on</source>
        <translation>运行于</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Server base URL</source>
        <translation>服务器基础 URL</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The server&apos;s OpenAI-compatible base URL; it usually ends in /v1.</source>
        <translation>服务器的 OpenAI 兼容基础 URL，通常以 /v1 结尾。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Model name on the server</source>
        <translation>服务器上的模型名称</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>List models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Ask the server which models it serves.</source>
        <translation>询问服务器提供哪些模型。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Model name</source>
        <translation>模型名称</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Environment variable with the API key</source>
        <translation>存放 API 密钥的环境变量</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The name of the environment variable that holds the API key (the key itself is never typed or stored here); empty: LLM_SCOUT_API_KEY, else the keyring.</source>
        <translation>存放 API 密钥的环境变量名（密钥本身从不在此输入或保存）；留空：LLM_SCOUT_API_KEY，否则使用系统密钥环。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>API key variable</source>
        <translation>API 密钥变量</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Model file</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>the model&apos;s name and what differs</source>
        <translation>模型名称及不同之处</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Context length in tokens</source>
        <translation>上下文长度（token）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Layers on the GPU; -1 puts every layer there.</source>
        <translation>放到 GPU 上的层数；-1 表示全部放到 GPU 上。</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+1"/>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Threads</source>
        <translation>线程</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>KV cache type</source>
        <translation>KV 缓存类型</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>A quantized KV cache takes less memory and turns flash attention on.</source>
        <translation>量化的 KV 缓存占用内存更少，并会开启 Flash Attention。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+1"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location line="+7"/>
        <location line="+1"/>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>The server lists no models.</source>
        <translation>服务器没有列出任何模型。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Pick a model on this machine.</source>
        <translation>请选择本机上的模型。</translation>
    </message>
</context>
<context>
    <name>ContestantList</name>
    <message>
        <location filename="../../desktop/ui/widgets/contestant_list.py" line="+99"/>
        <source>Import a prompt suite</source>
        <translation>导入提示词集</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Prompt suites (*.jsonl *.csv)</source>
        <translation>提示词集 (*.jsonl *.csv)</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Add a model</source>
        <translation>添加模型</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
</context>
<context>
    <name>DownloadsModel</name>
    <message>
        <location filename="../../desktop/ui/models/downloads_model.py" line="+81"/>
        <source>Model</source>
        <extracomment>The :class:`DownloadJob` of a row (any column). The job&apos;s state value (&quot;downloading&quot;, &quot;failed&quot;, ...) as a string.</extracomment>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Time left</source>
        <translation>剩余时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checking</source>
        <translation>检查中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Downloading</source>
        <translation>下载中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retrying</source>
        <translation>重试中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Verifying</source>
        <translation>校验中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Done</source>
        <translation>已完成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>%1 of %2 · %3%</source>
        <translation>%1 / %2 · %3%</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Checking %1: %2 of %3 (%4%)</source>
        <translation>正在检查 %1：%2 / %3（%4%）</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>%1 files</source>
        <translation>%1 个文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 · not verified against a known hash</source>
        <translation>%1 · 未对照已知哈希校验</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1 (%2 of %3)</source>
        <translation>%1（%2 / %3）</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1/s</source>
        <translation>%1/s</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>%1 from %2
%3</source>
        <translation>%1，来自 %2
%3</translation>
    </message>
</context>
<context>
    <name>DownloadsPage</name>
    <message>
        <location filename="../../desktop/ui/pages/downloads.py" line="+63"/>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Change the Hub address or pick a mirror on the Settings page.</source>
        <translation>可在“设置”页更改 Hub 地址或选择镜像。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Stop for now and keep what arrived; Resume continues from there.</source>
        <translation>暂时停止并保留已下载的部分；点“继续”从断点接着下载。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Continue a paused download where it stopped.</source>
        <translation>从暂停处继续下载。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Try a failed download again; it resumes from the data already there.</source>
        <translation>重新尝试失败的下载；会从已下载的数据接着下载。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Stop the download, delete what arrived and take it off the list.</source>
        <translation>停止下载，删除已下载的部分并将其移出列表。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Clear done</source>
        <translation>清除已完成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Take finished downloads off the list.</source>
        <translation>将已完成的下载移出列表。</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Download queue</source>
        <translation>下载队列</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>Nothing is downloading. Pick a model on the Models page and press Download: it shows up here with its progress, and lands in the Library when it is done.</source>
        <translation>当前没有下载任务。在“模型”页选择一个模型并点击“下载”：它会带着进度显示在这里，下载完成后出现在“本地模型”中。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Open the Models page</source>
        <translation>打开“模型”页</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Download details</source>
        <translation>下载详情</translation>
    </message>
    <message>
        <location line="+108"/>
        <source>%1 from %2, into %3</source>
        <translation>%1，来自 %2，保存到 %3</translation>
    </message>
    <message>
        <location line="+71"/>
        <source>The Hub address in the settings cannot be used: %1</source>
        <translation>设置中的 Hub 地址无法使用：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Downloads are unavailable because %1.</source>
        <translation>无法下载，原因：%1。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Downloading from %1 (mirror)</source>
        <translation>正在从 %1 下载（镜像）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Downloading from %1</source>
        <translation>正在从 %1 下载</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Downloading from %1 (custom address)</source>
        <translation>正在从 %1 下载（自定义地址）</translation>
    </message>
</context>
<context>
    <name>EngineErrorBanner</name>
    <message>
        <location filename="../../desktop/ui/widgets/engine_error.py" line="+44"/>
        <source>Engine error</source>
        <translation>引擎错误</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Show the end of llama.cpp&apos;s log.</source>
        <translation>显示 llama.cpp 日志的末尾部分。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Reload</source>
        <translation>重新加载</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Load the same model with the same settings again; the conversation stays.</source>
        <translation>用相同设置重新加载同一个模型；对话会保留。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>llama.cpp log</source>
        <translation>llama.cpp 日志</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>llama.cpp wrote nothing.</source>
        <translation>llama.cpp 没有输出任何内容。</translation>
    </message>
</context>
<context>
    <name>ErrorKinds</name>
    <message>
        <location filename="../../desktop/ui/error_texts.py" line="+15"/>
        <location filename="../../desktop/ui/errors.py" line="+36"/>
        <source>Something went wrong</source>
        <translation>出错了</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Options that do not fit together</source>
        <translation>选项互相冲突</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Settings cannot be saved</source>
        <translation>无法保存设置</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The database cannot be used</source>
        <translation>数据库无法使用</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hardware profile problem</source>
        <translation>硬件配置文件有问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Demo model missing</source>
        <translation>缺少演示模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model file cannot be read</source>
        <translation>无法读取模型文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model file cannot be opened</source>
        <translation>无法打开模型文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model file is missing</source>
        <translation>模型文件不存在</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+139"/>
        <source>The model file is incomplete</source>
        <translation>模型文件不完整</translation>
    </message>
    <message>
        <location line="-138"/>
        <source>The file is not a valid GGUF model</source>
        <translation>该文件不是有效的 GGUF 模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Unsupported GGUF version</source>
        <translation>不支持的 GGUF 版本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The GGUF file holds no model</source>
        <translation>该 GGUF 文件中没有模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A part of a split model is wrong</source>
        <translation>分卷模型的某个分卷有误</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A part of a split model is missing</source>
        <translation>分卷模型缺少某个分卷</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>This is not the first part of a split model</source>
        <translation>这不是分卷模型的第一个分卷</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The remote model file cannot be read</source>
        <translation>无法读取远程模型文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not a valid model address</source>
        <translation>不是有效的模型地址</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No connection to the server</source>
        <translation>无法连接服务器</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The server did not answer in time</source>
        <translation>服务器响应超时</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Catalog problem</source>
        <translation>模型目录有问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The catalog file is not valid</source>
        <translation>模型目录文件无效</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The catalog file is not valid JSON</source>
        <translation>模型目录文件不是有效的 JSON</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The catalog file is missing</source>
        <translation>模型目录文件不存在</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The catalog file cannot be read</source>
        <translation>无法读取模型目录文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The catalog cannot be saved</source>
        <translation>无法保存模型目录</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Offline: the catalog cannot be refreshed</source>
        <translation>离线：无法刷新模型目录</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The Hub cannot be reached</source>
        <translation>无法访问 Hub</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No such model in the catalog</source>
        <translation>模型目录中没有这个模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No such variant in the catalog</source>
        <translation>模型目录中没有这个变体</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The estimate is not possible</source>
        <translation>无法估算</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hugging Face Hub problem</source>
        <translation>Hugging Face Hub 出现问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not a Hub address</source>
        <translation>不是 Hub 地址</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not a valid repository or file name</source>
        <translation>不是有效的仓库名或文件名</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Download failed</source>
        <translation>下载失败</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Already being downloaded</source>
        <translation>已在下载中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Download cancelled</source>
        <translation>下载已取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not enough disk space</source>
        <translation>磁盘空间不足</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Licence acceptance or token needed</source>
        <translation>需要接受许可协议或提供令牌</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Network error</source>
        <translation>网络错误</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A file where a folder should be</source>
        <translation>此处应为文件夹，却是一个文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not found on the Hub</source>
        <translation>在 Hub 上找不到</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Offline</source>
        <translation>离线</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Unsafe file name refused</source>
        <translation>已拒绝不安全的文件名</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Checksum mismatch</source>
        <translation>校验和不匹配</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Library problem</source>
        <translation>本地模型库有问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The file cannot be copied</source>
        <translation>无法复制文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A different file with that name exists</source>
        <translation>已存在同名的其他文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A folder, not a file</source>
        <translation>这是文件夹，不是文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Unexpected folder layout</source>
        <translation>文件夹结构不符合预期</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The file is missing</source>
        <translation>文件不存在</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The library was written by a newer version</source>
        <translation>模型库由更新版本的程序写入</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The library database is damaged</source>
        <translation>模型库数据库已损坏</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The library database is busy</source>
        <translation>模型库数据库正被占用</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model not found</source>
        <translation>找不到模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No models folder</source>
        <translation>没有模型文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No such file</source>
        <translation>没有这个文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A split model is incomplete</source>
        <translation>分卷模型不完整</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not the first part of a split model</source>
        <translation>不是分卷模型的第一个分卷</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not in the library</source>
        <translation>不在本地模型库中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The file cannot be read</source>
        <translation>无法读取文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not a GGUF model</source>
        <translation>不是 GGUF 模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Comparison problem</source>
        <translation>对比出现问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A comparison takes two to six models</source>
        <translation>对比需要二到六个模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A comparison setting cannot be used</source>
        <translation>某项对比设置无法使用</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not enough memory to run the models together</source>
        <translation>内存不足，无法同时运行这些模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The prompt suite cannot be used</source>
        <translation>提示词集无法使用</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No such prompt suite</source>
        <translation>没有这个提示词集</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The history cannot be used</source>
        <translation>历史记录无法使用</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The history was written by a newer version</source>
        <translation>历史记录由更新版本的程序写入</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not in the history</source>
        <translation>不在历史记录中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The history database is damaged</source>
        <translation>历史记录数据库已损坏</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The history database is busy</source>
        <translation>历史记录数据库正被占用</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The results file cannot be used</source>
        <translation>无法使用该结果文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The results file is damaged</source>
        <translation>结果文件已损坏</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Wrong kind of file</source>
        <translation>文件类型不对</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The results file was written by a newer version</source>
        <translation>结果文件由更新的版本写入</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Engine problem</source>
        <translation>引擎出现问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Chat template problem</source>
        <translation>聊天模板有问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model file does not exist</source>
        <translation>模型文件不存在</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not a model file</source>
        <translation>不是模型文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not a GGUF file</source>
        <translation>不是 GGUF 文件</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Architecture not supported by this llama.cpp</source>
        <translation>当前的 llama.cpp 不支持该架构</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not enough memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model could not be loaded</source>
        <translation>无法加载模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The engine is busy</source>
        <translation>引擎正忙</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The conversation is longer than the context</source>
        <translation>对话长度超出了上下文</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The request cannot be run</source>
        <translation>无法执行该请求</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Generation failed</source>
        <translation>生成失败</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loading cancelled</source>
        <translation>已取消加载</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The engine sent something unexpected</source>
        <translation>引擎返回了意外的内容</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The engine stopped</source>
        <translation>引擎已停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The engine could not be started</source>
        <translation>无法启动引擎</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The engine did not answer in time</source>
        <translation>引擎响应超时</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>llama-cpp-python is missing</source>
        <translation>缺少 llama-cpp-python</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The server cannot be reached</source>
        <translation>无法连接到服务器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The server refused the API key</source>
        <translation>服务器拒绝了 API 密钥</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not an OpenAI-compatible address</source>
        <translation>不是 OpenAI 兼容的地址</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The server does not serve that model</source>
        <translation>服务器未提供该模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The server reported an error</source>
        <translation>服务器报告了错误</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The server sent a malformed stream</source>
        <translation>服务器发送的数据流格式错误</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The server closed the connection mid-answer</source>
        <translation>服务器在回答中途断开了连接</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Remote model settings cannot be used</source>
        <translation>远程模型设置无法使用</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>llama.cpp could not quantize the file</source>
        <translation>llama.cpp 无法量化该文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The quality measurement is not possible</source>
        <translation>无法进行质量测量</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The evaluation text cannot be used</source>
        <translation>评测文本无法使用</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The reference has another vocabulary</source>
        <translation>参考模型的词表不同</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The reference pack cannot be read</source>
        <translation>无法读取参考包</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The reference pack is for another tokenizer</source>
        <translation>该参考包属于另一种分词器</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The question files cannot be read</source>
        <translation>无法读取题目文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Not a quantization type llama.cpp makes here</source>
        <translation>llama.cpp 在此无法生成该量化类型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The quantized file cannot be written</source>
        <translation>无法写入量化后的文件</translation>
    </message>
</context>
<context>
    <name>ErrorSentences</name>
    <message>
        <location filename="../../desktop/ui/error_sentences.py" line="+26"/>
        <source>{name} is not a GGUF file: it starts with &quot;{found}&quot; instead of GGUF</source>
        <translation>{name} 不是 GGUF 文件：它以“{found}”开头，而不是 GGUF</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{name} is not a GGUF file: it starts with the bytes {found} instead of GGUF</source>
        <translation>{name} 不是 GGUF 文件：它以字节 {found} 开头，而不是 GGUF</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{name} is empty (0 bytes)</source>
        <translation>{name} 是空文件（0 字节）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{name} is cut short: it ends at byte {end}, before its header is complete</source>
        <translation>{name} 不完整：文件在第 {end} 字节处就结束了，文件头还没有读完</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{name} is cut short: the data of tensor {tensor} would end at byte {end} but the file has only {size} bytes</source>
        <translation>{name} 不完整：张量 {tensor} 的数据应到第 {end} 字节才结束，但文件只有 {size} 字节</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{name} is damaged: its GGUF header breaks the format</source>
        <translation>{name} 已损坏：它的 GGUF 文件头不符合格式</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{name} uses tensor type {type} for {tensor}, which this version of the gguf package does not know</source>
        <translation>{name} 的张量 {tensor} 使用类型 {type}，当前版本的 gguf 包不认识这种类型</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{name} is damaged: the data of tensor {tensor} overlaps the one before it, which llama.cpp refuses</source>
        <translation>{name} 已损坏：张量 {tensor} 的数据与前一个张量重叠，llama.cpp 不接受这样的文件</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{name} is damaged: the data of tensor {tensor} leaves a gap after the one before it, which llama.cpp refuses</source>
        <translation>{name} 已损坏：张量 {tensor} 的数据与前一个张量之间有空隙，llama.cpp 不接受这样的文件</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{name} uses GGUF version 1, which llama.cpp no longer reads</source>
        <translation>{name} 使用 GGUF 第 1 版，llama.cpp 已不再支持读取</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{name} uses unknown GGUF version {version} (known: 2 and 3)</source>
        <translation>{name} 使用未知的 GGUF 版本 {version}（已知版本：2 和 3）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{name} is not a language model file: it has no {key} entry</source>
        <translation>{name} 不是语言模型文件：其中没有 {key} 项</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{name} has a value under {key} that a model cannot have</source>
        <translation>{name} 的 {key} 项的值不可能属于一个模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>There is no file at {path}</source>
        <translation>{path} 处没有文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>{path} is a folder, not a GGUF file</source>
        <translation>{path} 是文件夹，不是 GGUF 文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} is not a regular file</source>
        <translation>{path} 不是普通文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} cannot be read: permission denied</source>
        <translation>无法读取 {path}：没有权限</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} cannot be read: {reason}</source>
        <translation>无法读取 {path}：{reason}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{name} is part {number} of {count} of a split model; read its first part</source>
        <translation>{name} 是分卷模型 {count} 个分卷中的第 {number} 个；请读取它的第一个分卷</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{name} is the first of {count} parts of a split model, but its name does not end in {suffix}, so its other parts cannot be found</source>
        <translation>{name} 是分卷模型 {count} 个分卷中的第一个，但文件名不以 {suffix} 结尾，因此找不到其他分卷</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The split model {name} has {count} parts but {part} is missing</source>
        <translation>分卷模型 {name} 共有 {count} 个分卷，但缺少 {part}</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{part} should be part {index} of {count} of {name}, but its header says part {said_number} of {said_count}</source>
        <translation>{part} 应是 {name} 的第 {index} 个分卷（共 {count} 个），但它的文件头写的是第 {said_number} 个（共 {said_count} 个）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>{part} should be part {index} of {count} of {name}, but its header says nothing about being a part</source>
        <translation>{part} 应是 {name} 的第 {index} 个分卷（共 {count} 个），但它的文件头没有分卷信息</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The split model {name} holds the tensor {tensor} twice (again in {part})</source>
        <translation>分卷模型 {name} 中张量 {tensor} 出现了两次（{part} 中又出现一次）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The split model {name} should hold {expected} tensors in all, but its {count} parts hold {found}</source>
        <translation>分卷模型 {name} 应共有 {expected} 个张量，但它的 {count} 个分卷中共有 {found} 个</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>{name} is part {number} of a split model; import its first part.</source>
        <translation>{name} 是分卷模型的第 {number} 个分卷；请导入它的第一个分卷。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The split model {name} is incomplete: {part} is missing.</source>
        <translation>分卷模型 {name} 不完整：缺少 {part}。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Cannot create the folder {folder}: {reason}.</source>
        <translation>无法创建文件夹 {folder}：{reason}。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A different file named {name} is already in {folder}.</source>
        <translation>{folder} 中已有一个同名但内容不同的文件 {name}。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Copying {name} to {folder} failed: {reason}.</source>
        <translation>将 {name} 复制到 {folder} 失败：{reason}。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Copying {name} to {folder} failed: there is not enough disk space.</source>
        <translation>将 {name} 复制到 {folder} 失败：磁盘空间不足。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>This library was opened without a models folder to copy into.</source>
        <translation>打开这个模型库时没有指定可复制进去的模型文件夹。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>There is no file at {path}.</source>
        <translation>{path} 处没有文件。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} is a folder; add folders with Add folder… (or `llm-scout library --add`).</source>
        <translation>{path} 是文件夹；请用“添加文件夹…”添加文件夹（或 `llm-scout library --add`）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>{path} cannot be read: {reason}.</source>
        <translation>无法读取 {path}：{reason}。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} cannot be deleted: {reason}.</source>
        <translation>无法删除 {path}：{reason}。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} is not in the library.</source>
        <translation>{path} 不在模型库中。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} is missing: {reason}.</source>
        <translation>{path} 不见了：{reason}。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} is no longer a usable GGUF model.</source>
        <translation>{path} 已不再是可用的 GGUF 模型。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{variant} is an {format} variant; llama.cpp runs GGUF files only.</source>
        <translation>{variant} 是 {format} 版本；llama.cpp 只能运行 GGUF 文件。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{name} was not downloaded by LLM Scout into {folder}, so the app does not delete it; it can only be forgotten.</source>
        <translation>{name} 不是 LLM Scout 下载到 {folder} 的，因此应用不会删除它，只能从列表中移除。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The split model {name} has {count} parts but part {parts} is missing.</source>
        <translation>分卷模型 {name} 共有 {count} 个分卷，但缺少第 {parts} 个。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The file {path} is a link to a file that no longer exists.</source>
        <translation>文件 {path} 是一个链接，指向的文件已不存在。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>{path} is not a regular file.</source>
        <translation>{path} 不是普通文件。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The Ollama model {name} points at a blob that is missing.</source>
        <translation>Ollama 模型 {name} 指向的数据块（blob）不存在。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The Ollama manifest {path} cannot be read.</source>
        <translation>无法读取 Ollama 清单 {path}。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The Ollama manifest {path} has no list of layers.</source>
        <translation>Ollama 清单 {path} 中没有层列表。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The Ollama manifest {path} has an invalid model digest.</source>
        <translation>Ollama 清单 {path} 中的模型摘要无效。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The {store} database {path} is busy: another program holds it; try again in a moment.</source>
        <translation>{store}数据库 {path} 正被另一个程序占用；请稍后再试。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The {store} database {path} is damaged, and another LLM Scout process still has it open: close it, then try again.</source>
        <translation>{store}数据库 {path} 已损坏，而另一个 LLM Scout 进程仍打开着它：请先关闭该进程，再重试。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The {store} database {path} is damaged and cannot be moved aside: {reason}.</source>
        <translation>{store}数据库 {path} 已损坏，且无法移到一旁：{reason}。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The {store} database {path} is still damaged after it was replaced.</source>
        <translation>{store}数据库 {path} 替换后仍然损坏。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The {store} database was written by a newer LLM Scout (schema {version}, this version knows {known}); update the app or move the file away.</source>
        <translation>{store}数据库由更新版本的 LLM Scout 写入（架构 {version}，本版本只认识到 {known}）；请更新应用或把该文件移走。</translation>
    </message>
    <message>
        <location line="+15"/>
        <location line="+8"/>
        <location line="+28"/>
        <source>library</source>
        <translation>模型库</translation>
    </message>
    <message>
        <location line="-22"/>
        <source>permission denied</source>
        <translation>没有权限</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>there is not enough disk space</source>
        <translation>磁盘空间不足</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no such file or folder</source>
        <translation>没有这个文件或文件夹</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>the file system is read-only</source>
        <translation>文件系统是只读的</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>an input/output error</source>
        <translation>输入/输出错误</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>it is a folder</source>
        <translation>它是一个文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a part of the path is not a folder</source>
        <translation>路径中有一部分不是文件夹</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the device or file is busy</source>
        <translation>设备或文件正忙</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the file name is too long</source>
        <translation>文件名太长</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>too many levels of links</source>
        <translation>链接层数太多</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>history</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <location line="+33"/>
        <source> (at byte %1)</source>
        <translation>（位于第 %1 字节）</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <location filename="../../desktop/ui/errors.py" line="+21"/>
        <source>An unexpected error happened; the log file has the details.</source>
        <translation>发生了意外错误；详情见日志文件。</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>Something went wrong</source>
        <translation>出错了</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>LLM Scout hit an unexpected error and wrote the details to its log file. The app keeps running.</source>
        <translation>LLM Scout 遇到了意外错误，详情已写入日志文件。程序会继续运行。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Open log file</source>
        <translation>打开日志文件</translation>
    </message>
</context>
<context>
    <name>Format</name>
    <message>
        <location filename="../../desktop/ui/format.py" line="+44"/>
        <location line="+2"/>
        <source>t/s</source>
        <translation>t/s</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>ms</source>
        <translation>毫秒</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>?</source>
        <translation>?</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../../desktop/ui/models/catalog_model.py" line="-453"/>
        <source>partial %1/%2</source>
        <extracomment>The :class:`CatalogEntry` of a row (in column 0). What the proxy sorts by: a number for numeric columns, lowercase text otherwise. The verdict key of a row (&quot;gpu&quot;, &quot;partial&quot;, &quot;cpu&quot;, &quot;no&quot;; &quot;&quot; before the estimate). Marks on numbers: a prediction, a size the Hub has not confirmed, a context past training.</extracomment>
        <translation>部分 %1/%2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not supported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no</source>
        <translation>放不下</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>This variant could not be estimated.</source>
        <translation>无法估算这个变体。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Runs fully on the GPU: every layer and the output layer in video memory.</source>
        <translation>完全在 GPU 上运行：所有层和输出层都在显存中。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Partial offload: %1 of %2 layers on the GPU, the rest on the CPU.</source>
        <translation>部分卸载：%2 层中有 %1 层在 GPU 上，其余在 CPU 上。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Runs on the CPU, in RAM.</source>
        <translation>在 CPU 上运行，使用内存。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Not supported here: AWQ needs an NVIDIA GPU with compute capability 7.5+.</source>
        <translation>此处不支持：AWQ 需要计算能力 7.5 及以上的 NVIDIA GPU。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Does not fit on this hardware at this context length.</source>
        <translation>在这个上下文长度下，这台硬件放不下。</translation>
    </message>
</context>
<context>
    <name>HardwarePage</name>
    <message>
        <location filename="../../desktop/ui/pages/hardware.py" line="+65"/>
        <source>Save profile…</source>
        <translation>保存配置…</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Write this machine&apos;s profile as JSON (the same as `llm-scout hw --save`), to ask from another computer what would fit here.</source>
        <translation>将本机的硬件配置写成 JSON（与 `llm-scout hw --save` 相同），以便在另一台电脑上查看这里能运行哪些模型。</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>What if: %1</source>
        <translation>假设：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Detecting the hardware…</source>
        <translation>正在检测硬件…</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+111"/>
        <source>Model</source>
        <translation>型号</translation>
    </message>
    <message>
        <location line="-109"/>
        <source>Cores</source>
        <translation>核心</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 cores, %2 threads</source>
        <translation>%1 核心，%2 线程</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>llama.cpp uses one thread per physical core by default.</source>
        <translation>llama.cpp 默认每个物理核心使用一个线程。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Instructions</source>
        <translation>指令集</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The vector instructions llama.cpp&apos;s CPU kernels can use here.</source>
        <translation>llama.cpp 的 CPU 内核在这里可以使用的向量指令。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Caches</source>
        <translation>缓存</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Memory bandwidth</source>
        <translation>内存带宽</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+102"/>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <location line="-100"/>
        <source>Measured once with a short copy benchmark (or from the spec sheet for a what-if profile); it bounds generation speed on the CPU.</source>
        <translation>用一次简短的复制测试测得（假设配置则取自规格表）；它决定了 CPU 上生成速度的上限。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 available of %2</source>
        <translation>可用 %1 / 共 %2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Container limit</source>
        <translation>容器限制</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Swap</source>
        <translation>交换空间</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Disk of the models folder</source>
        <translation>模型文件夹所在磁盘</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>NVMe SSD</source>
        <translation>NVMe 固态硬盘</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SSD</source>
        <translation>固态硬盘</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hard disk</source>
        <translation>机械硬盘</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Unknown kind</source>
        <translation>类型未知</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+49"/>
        <source>%1 free of %2</source>
        <translation>空闲 %1 / 共 %2</translation>
    </message>
    <message>
        <location line="-45"/>
        <source>Space</source>
        <translation>空间</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 MB/s</source>
        <translation>%1 MB/s</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Measure</source>
        <translation>测量</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Time a sequential read of up to 256 MiB from this disk (a few seconds).</source>
        <translation>从这个磁盘顺序读取最多 256 MiB 并计时（需要几秒钟）。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Read speed</source>
        <translation>读取速度</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+2"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>None found: models run on the CPU.</source>
        <translation>未找到 GPU：模型将在 CPU 上运行。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Unified memory</source>
        <translation>统一内存</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Video memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Driver / CUDA</source>
        <translation>驱动 / CUDA</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>llama.cpp build</source>
        <translation>llama.cpp 构建</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Starting an engine worker to check…</source>
        <translation>正在启动引擎工作进程进行检查…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Build</source>
        <translation>构建</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>GPU offload</source>
        <translation>GPU 卸载</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no (CPU-only build)</source>
        <translation>否（仅 CPU 构建）</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>Reset the calibration</source>
        <translation>重置校准</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Forget every run this machine&apos;s estimates learned from? The estimates go back to the raw model until new runs are made; the file is copied aside first.</source>
        <translation>要忘掉本机估算所依据的全部运行吗？在有新的运行之前，估算将恢复为未校准的模型；文件会先另存一份副本。</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>Save this machine&apos;s profile</source>
        <translation>保存本机的硬件配置</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Hardware profiles (*.json)</source>
        <translation>硬件配置 (*.json)</translation>
    </message>
</context>
<context>
    <name>History</name>
    <message>
        <location filename="../../desktop/ui/models/history_model.py" line="+143"/>
        <source>This machine</source>
        <extracomment>The :class:`HistoryItem` of a row (any column).</extracomment>
        <translation>本机</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>complete</source>
        <translation>完整</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>partial</source>
        <translation>部分完成</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>cut off</source>
        <translation>被截断</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1/%2 answers</source>
        <translation>%1/%2 个回答</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Prompt or title</source>
        <translation>提示词或标题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Comparison</source>
        <translation>对比</translation>
    </message>
</context>
<context>
    <name>HistoryBar</name>
    <message>
        <location filename="../../desktop/ui/widgets/history_bar.py" line="+23"/>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>words in a prompt, an answer or a title</source>
        <translation>提示词、回答或标题中的词</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Search the history</source>
        <translation>搜索历史记录</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Filter by model</source>
        <translation>按模型筛选</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+64"/>
        <source>All models</source>
        <translation>全部模型</translation>
    </message>
    <message>
        <location line="-62"/>
        <source>Machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Filter by machine</source>
        <translation>按机器筛选</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+67"/>
        <source>All machines</source>
        <translation>全部机器</translation>
    </message>
    <message>
        <location line="-65"/>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Show answers, comparisons or both</source>
        <translation>显示回答、对比或两者</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Everything</source>
        <translation>全部</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Answers</source>
        <translation>回答</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Comparisons</source>
        <translation>对比</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Add the results of another machine: a file written there by `llm-scout history export` (or drop it on this page).</source>
        <translation>添加另一台机器的结果：在那台机器上用 `llm-scout history export` 写出的文件（也可以把文件拖到本页）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Write this history&apos;s results to one file, to import on another machine.</source>
        <translation>把本机历史记录中的结果写入一个文件，以便在另一台机器上导入。</translation>
    </message>
</context>
<context>
    <name>HistoryDetail</name>
    <message>
        <location filename="../../desktop/ui/widgets/history_detail.py" line="+82"/>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Select an answer or a comparison.</source>
        <translation>选择一个回答或一次对比。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Playground</source>
        <translation>演练场</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>llm-scout run</source>
        <translation>llm-scout run</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>an unknown model</source>
        <translation>未知模型</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Cut off: %1</source>
        <translation>被截断：%1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>System prompt</source>
        <translation>系统提示词</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Answer</source>
        <translation>回答</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(nothing came)</source>
        <translation>（没有输出）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Predicted vs measured</source>
        <translation>预测与实测</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model file</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+230"/>
        <source>Quality measured</source>
        <translation>测得的质量</translation>
    </message>
    <message>
        <location line="-227"/>
        <location line="+232"/>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <location line="-226"/>
        <source>RAM (peak RSS)</source>
        <translation>内存（峰值 RSS）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>VRAM (peak)</source>
        <translation>显存（峰值）</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+263"/>
        <source>generation</source>
        <translation>生成</translation>
    </message>
    <message>
        <location line="-257"/>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>error</source>
        <translation>误差</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>load %1</source>
        <translation>加载 %1</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>threads</source>
        <translation>线程</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>flash attention</source>
        <translation>Flash Attention</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>chat template</source>
        <translation>聊天模板</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>RPC servers</source>
        <translation>RPC 服务器</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>top-p</source>
        <translation>top-p</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>top-k</source>
        <translation>top-k</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>min-p</source>
        <translation>min-p</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>repeat penalty</source>
        <translation>重复惩罚</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>max tokens</source>
        <translation>最大 token 数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stop strings</source>
        <translation>停止字符串</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>past the end of text</source>
        <translation>越过文本结束符</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>predicted for</source>
        <translation>预测基于</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPU layers loaded</source>
        <translation>已加载到 GPU 的层数</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>No settings stored.</source>
        <translation>没有保存设置。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>server</source>
        <translation>服务器</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+60"/>
        <source>model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="-56"/>
        <location line="+10"/>
        <source>Not stored.</source>
        <translation>未保存。</translation>
    </message>
    <message>
        <location line="-8"/>
        <source>file</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>sha256</source>
        <translation>sha256</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>not computed yet</source>
        <translation>尚未计算</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>%1 cores, %2 threads</source>
        <translation>%1 核心，%2 线程</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>system</source>
        <translation>系统</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>multiple choice</source>
        <translation>选择题</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>loss against a reference</source>
        <translation>相对参考的损失</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>measure</source>
        <translation>测量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>figure</source>
        <translation>数值</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>95% interval</source>
        <translation>95% 区间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>reference or questions</source>
        <translation>参考或题目</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>tokens or questions</source>
        <translation>token 数或题数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>date</source>
        <translation>日期</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>KLD</source>
        <translation>KLD</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>%1 questions</source>
        <translation>%1 道题</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1 tokens</source>
        <translation>%1 个 token</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>(stopped early)</source>
        <translation>（提前停止）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>fair</source>
        <translation>公平</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>parallel</source>
        <translation>并行</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>mode: %1</source>
        <translation>模式：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1/%2 answers</source>
        <translation>%1/%2 个回答</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>suite: %1</source>
        <translation>提示词集：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>blind</source>
        <translation>盲测</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Some answers are missing: Open shows it and can resume it.</source>
        <translation>部分回答缺失：点“打开”可以查看并继续运行。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Contestants</source>
        <translation>参赛模型</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 blind votes</source>
        <translation>%1 次盲测投票</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Prompts</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>contestant</source>
        <translation>参赛模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>answers</source>
        <translation>回答</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TTFT</source>
        <translation>首 token</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>peak RAM</source>
        <translation>内存峰值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>checks</source>
        <translation>检查</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>(no answer yet)</source>
        <translation>（还没有回答）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>and %1 more</source>
        <translation>还有 %1 条</translation>
    </message>
</context>
<context>
    <name>HistoryPage</name>
    <message>
        <location filename="../../desktop/ui/pages/history.py" line="+116"/>
        <source>Stored answers and comparisons</source>
        <translation>已保存的回答和对比</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Nothing is stored yet. Every answer from the Playground and every comparison from the Compare page is kept here, newest first, with its measurements, settings and the machine it ran on.</source>
        <translation>还没有保存任何内容。演练场中的每个回答和“对比”页中的每次对比都会保存在这里，最新的在最前，并附带测量数据、设置以及运行它的机器。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Import another machine&apos;s results…</source>
        <translation>导入另一台机器的结果…</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Answers and comparisons</source>
        <translation>回答和对比</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Across machines</source>
        <translation>跨机器对比</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>One model with the same settings side by side on each machine.</source>
        <translation>同一模型在相同设置下于各台机器上并排对比。</translation>
    </message>
    <message>
        <location line="+94"/>
        <source>1 item</source>
        <translation>1 项</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1 items</source>
        <translation>%1 项</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Nothing matches the search and filters.</source>
        <translation>没有符合搜索和筛选条件的内容。</translation>
    </message>
</context>
<context>
    <name>HistoryPane</name>
    <message>
        <location filename="../../desktop/ui/widgets/history_pane.py" line="+53"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Show this comparison in the Compare page.</source>
        <translation>在“对比”页中显示这次对比。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Re-run on this machine</source>
        <translation>在本机上重新运行</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+138"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location line="-60"/>
        <source>Open this server and model in the Playground with this prompt.</source>
        <translation>在演练场中用这个提示词填入这个服务器和模型。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open this model in the Playground with this prompt.</source>
        <translation>在演练场中用这个提示词打开这个模型。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Run this comparison again on this machine, in the Compare page.</source>
        <translation>在“对比”页中，在本机上重新运行这次对比。</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>The model of this answer is not known.</source>
        <translation>不知道这个回答用的是哪个模型。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The model file %1 is gone.</source>
        <translation>模型文件 %1 已不存在。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Delete from the history</source>
        <translation>从历史记录中删除</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>Delete the comparison “%1”?</source>
        <translation>要删除对比“%1”吗？</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Its answers and votes are deleted with it.</source>
        <translation>它的回答和投票也会一并删除。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Delete this answer of %1?</source>
        <translation>要删除 %1 的这个回答吗？</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The model file stays on the disk.</source>
        <translation>模型文件会保留在磁盘上。</translation>
    </message>
</context>
<context>
    <name>LayersSpin</name>
    <message>
        <location filename="../../desktop/ui/widgets/layers_spin.py" line="+15"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
</context>
<context>
    <name>LibraryBar</name>
    <message>
        <location filename="../../desktop/ui/widgets/library_bar.py" line="+40"/>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Add GGUF files to the library (you can also drop them on the window).</source>
        <translation>把 GGUF 文件添加到本地模型库（也可以直接拖放到窗口上）。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Copy into the models folder</source>
        <translation>复制到模型文件夹</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Imported files are used where they are; tick this to copy them into the models folder&apos;s imported/ folder instead.</source>
        <translation>导入的文件默认在原位置使用；勾选后会改为复制到模型文件夹下的 imported/ 文件夹中。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Remember a folder you keep GGUF models in and scan it (and its subfolders).</source>
        <translation>记住一个存放 GGUF 模型的文件夹，并扫描它（包括子文件夹）。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Rescan</source>
        <translation>重新扫描</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Look again in the models folder, the Hugging Face cache, LM Studio, Ollama, GPT4All and your folders. Only new or changed files are read.</source>
        <translation>重新查找模型文件夹、Hugging Face 缓存、LM Studio、Ollama、GPT4All 以及你添加的文件夹。只读取新增或有变动的文件。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Open models folder</source>
        <translation>打开模型文件夹</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open the folder the app downloads models into, in the file manager.</source>
        <translation>在文件管理器中打开应用下载模型所用的文件夹。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Show in folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open the folder holding this file.</source>
        <translation>打开这个文件所在的文件夹。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quality…</source>
        <translation>质量…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Measure this model&apos;s quality here: what its quantization loses against a reference, or its multiple-choice accuracy, with 95% intervals.</source>
        <translation>在本机测量该模型的质量：量化相对参考模型损失了多少，或选择题准确率，均附 95% 置信区间。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Remove…</source>
        <translation>移除…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Delete a model the app downloaded, or forget any other file (it stays on disk).</source>
        <translation>删除本程序下载的模型，或忘记其他文件（文件仍留在磁盘上）。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Import GGUF models</source>
        <translation>导入 GGUF 模型</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>GGUF models (*.gguf);;All files (*)</source>
        <translation>GGUF 模型 (*.gguf);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Add a folder of GGUF models</source>
        <translation>添加存放 GGUF 模型的文件夹</translation>
    </message>
</context>
<context>
    <name>LibraryModel</name>
    <message>
        <location filename="../../desktop/ui/models/library_model.py" line="+171"/>
        <source>Name</source>
        <extracomment>The :class:`LibraryRow` of a row (any column). What the proxy sorts by: a number for numeric columns, lowercase text otherwise. Columns a problem row&apos;s sentence spans (from COL_ARCH).</extracomment>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Params</source>
        <translation>参数量</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quant</source>
        <translation>量化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Catalog variant</source>
        <translation>目录变体</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Path</source>
        <translation>路径</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Parameters, from the file&apos;s tensors.</source>
        <translation>参数量，根据文件中的张量统计。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The context length the model was trained for.</source>
        <translation>模型训练时的上下文长度。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The catalog variant this file was matched to (by sha256, file name or the header&apos;s facts), which the fit estimate and the Models page use.</source>
        <translation>这个文件对应的目录变体（通过 sha256、文件名或文件头信息匹配），适配估算和“模型”页会用到它。</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>Downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Imported</source>
        <translation>已导入</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hugging Face cache</source>
        <translation>Hugging Face 缓存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LM Studio</source>
        <translation>LM Studio</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ollama</source>
        <translation>Ollama</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GPT4All</source>
        <translation>GPT4All</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Your folder</source>
        <translation>你的文件夹</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Demo model</source>
        <translation>演示模型</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Not imported</source>
        <translation>未导入</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 (missing)</source>
        <translation>%1（缺失）</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>The file is gone since the last scan: %1</source>
        <translation>上次扫描后文件已不存在：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Not matched to a catalog variant.</source>
        <translation>未匹配到目录中的变体。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>matched by its sha256</source>
        <translation>按 sha256 匹配</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>matched by its file name</source>
        <translation>按文件名匹配</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>matched by the header&apos;s facts</source>
        <translation>按文件头信息匹配</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
</context>
<context>
    <name>LibraryPage</name>
    <message>
        <location filename="../../desktop/ui/pages/library.py" line="+104"/>
        <source>Library</source>
        <translation>本地模型</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>Selected model</source>
        <translation>选中的模型</translation>
    </message>
    <message>
        <location filename="../../desktop/ui/widgets/library_texts.py" line="+39"/>
        <source>%1 model</source>
        <translation>%1 个模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 models</source>
        <translation>%1 个模型</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 file with a problem</source>
        <translation>%1 个文件有问题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 files with problems</source>
        <translation>%1 个文件有问题</translation>
    </message>
    <message>
        <location filename="../../desktop/ui/pages/library.py" line="+192"/>
        <location filename="../../desktop/ui/widgets/library_texts.py" line="+9"/>
        <source>Looking for models…</source>
        <translation>正在查找模型…</translation>
    </message>
    <message>
        <location filename="../../desktop/ui/widgets/library_texts.py" line="+1"/>
        <source>No models yet. Download one from the Models page, import a .gguf file (or drop it here), or add a folder where you keep models.</source>
        <translation>还没有模型。可以在“模型”页下载一个，导入一个 .gguf 文件（或拖放到这里），或者添加一个存放模型的文件夹。</translation>
    </message>
    <message>
        <location filename="../../desktop/ui/pages/library.py" line="-86"/>
        <source>Scanning the new folder…</source>
        <translation>正在扫描新文件夹…</translation>
    </message>
    <message>
        <location filename="../../desktop/ui/widgets/library_texts.py" line="+15"/>
        <source>(%1 parts)</source>
        <translation>（%1 个分卷）</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>catalog: %1</source>
        <translation>目录：%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>missing since the last scan</source>
        <translation>上次扫描后已缺失</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Scan stopped after %1 model file.</source>
        <translation>扫描已停止，找到 %1 个模型文件。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scan stopped after %1 model files.</source>
        <translation>扫描已停止，找到 %1 个模型文件。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Scan done: %1 model file found</source>
        <translation>扫描完成：找到 %1 个模型文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scan done: %1 model files found</source>
        <translation>扫描完成：找到 %1 个模型文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>, %1 new</source>
        <translation>，其中 %1 个是新的</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>, %1 with problems</source>
        <translation>，%1 个有问题</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Imported %1 file.</source>
        <translation>已导入 %1 个文件。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Imported %1 files.</source>
        <translation>已导入 %1 个文件。</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>%1 was not imported: %2</source>
        <translation>%1 未导入：%2</translation>
    </message>
    <message>
        <location line="-22"/>
        <source>Import stopped.</source>
        <translation>导入已停止。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Deleted %1 file.</source>
        <translation>已删除 %1 个文件。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Deleted %1 files.</source>
        <translation>已删除 %1 个文件。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Forgotten; the file stays on disk.</source>
        <translation>已忘记；文件仍保留在磁盘上。</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 other reasons</source>
        <translation>其他 %1 种原因</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 files were not imported (%2); they are listed as errors in the table: select one to see why.</source>
        <translation>%1 个文件未导入（%2）；它们在表格中列为错误行：选中一行即可查看原因。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <location filename="../../desktop/ui/pages/library.py" line="+89"/>
        <source>Scanning…</source>
        <translation>正在扫描…</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Importing %1 file…</source>
        <translation>正在导入 %1 个文件…</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Importing %1 files…</source>
        <translation>正在导入 %1 个文件…</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>There is no folder at %1.</source>
        <translation>%1 处没有文件夹。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Scanning %1…</source>
        <translation>正在扫描 %1…</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Cannot open the models folder %1: %2</source>
        <translation>无法打开模型文件夹 %1：%2</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The folder %1 is gone.</source>
        <translation>文件夹 %1 已不存在。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Deleting %1…</source>
        <translation>正在删除 %1…</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Forgetting %1…</source>
        <translation>正在忘记 %1…</translation>
    </message>
</context>
<context>
    <name>LibraryProgress</name>
    <message>
        <location filename="../../desktop/ui/widgets/library_progress.py" line="+33"/>
        <source>Library work in progress</source>
        <translation>本地模型库任务进行中</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Scanning folder %1 of %2: %3 files, %4 read</source>
        <translation>正在扫描第 %1 / %2 个文件夹：%3 个文件，已读取 %4</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Copying %1 (%2 of %3): %4 of %5</source>
        <translation>正在复制 %1（%2 / %3）：%4 / %5</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Hashing %1 (%2 of %3): %4 of %5</source>
        <translation>正在计算 %1 的哈希（%2 / %3）：%4 / %5</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
</context>
<context>
    <name>LibraryTable</name>
    <message>
        <location filename="../../desktop/ui/widgets/library_table.py" line="+31"/>
        <source>Models on this machine</source>
        <translation>本机上的模型</translation>
    </message>
</context>
<context>
    <name>LiveDrawer</name>
    <message>
        <location filename="../../desktop/ui/widgets/live_drawer.py" line="+78"/>
        <source>Redrawn about %1 times a second while the model answers: llama.cpp&apos;s threads take every CPU, and drawing more often would slow down the speed being measured (Settings: Live plots).</source>
        <translation>模型作答时每秒约重绘 %1 次：llama.cpp 的线程占用了全部 CPU，画得更频繁会拖慢正在测量的速度（设置：实时图表）。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Redrawn about %1 times a second while the model answers (Settings: Live plots).</source>
        <translation>模型作答时每秒约重绘 %1 次（设置：实时图表）。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>llama.cpp&apos;s threads take every CPU: redrawing at ~30 Hz slows down the speed being measured by a few percent (Settings: Live plots).</source>
        <translation>llama.cpp 的线程占用了全部 CPU：以约 30 Hz 重绘会使测得的速度降低几个百分点（设置：实时图表）。</translation>
    </message>
</context>
<context>
    <name>LivePlots</name>
    <message>
        <location filename="../../desktop/ui/widgets/live_plots.py" line="+182"/>
        <source>Live measurements</source>
        <translation>实时测量</translation>
    </message>
    <message>
        <location line="+45"/>
        <source>tokens/s</source>
        <translation>tokens/s</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+324"/>
        <source>memory (MiB)</source>
        <translation>内存（MiB）</translation>
    </message>
    <message>
        <location line="-323"/>
        <source>GPU %</source>
        <translation>GPU %</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <location line="+42"/>
        <source>no readings yet</source>
        <translation>暂无读数</translation>
    </message>
    <message>
        <location line="+37"/>
        <location line="+35"/>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <location line="-4"/>
        <source>tokens/s (last second)</source>
        <translation>tokens/s（最近一秒）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>private RAM</source>
        <translation>私有内存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>file-backed RAM (model pages)</source>
        <translation>文件映射内存（模型页）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VRAM</source>
        <translation>显存</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>load</source>
        <translation>加载</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>generation</source>
        <translation>生成</translation>
    </message>
    <message>
        <location line="+49"/>
        <source>no GPU</source>
        <translation>无 GPU</translation>
    </message>
    <message>
        <location line="+156"/>
        <source>memory (GiB)</source>
        <translation>内存（GiB）</translation>
    </message>
</context>
<context>
    <name>LoadPanel</name>
    <message>
        <location filename="../../desktop/ui/widgets/load_panel.py" line="+131"/>
        <location line="+47"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="-41"/>
        <source>Pick a model on this machine</source>
        <translation>选择本机上的模型</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open…</source>
        <translation>打开…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open a GGUF file from disk.</source>
        <translation>从磁盘打开一个 GGUF 文件。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Chat template</source>
        <translation>聊天模板</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The chat template that turns the conversation into the model&apos;s prompt: the file&apos;s own, or one chosen by architecture when the file has none, or one you pick.</source>
        <translation>把对话转换成模型提示词的聊天模板：使用文件自带的；文件没有时按架构选择；或者由你指定。</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+334"/>
        <source>Load</source>
        <translation>加载</translation>
    </message>
    <message>
        <location line="-330"/>
        <location line="+335"/>
        <source>Unload</source>
        <translation>卸载</translation>
    </message>
    <message>
        <location line="-332"/>
        <location line="+196"/>
        <source>End the model&apos;s worker process and free its memory.</source>
        <translation>结束模型的工作进程并释放其内存。</translation>
    </message>
    <message>
        <location line="-187"/>
        <source>Loading</source>
        <translation>加载进度</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Template</source>
        <translation>模板</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Context length in tokens</source>
        <translation>上下文长度（token）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Tokens of conversation the model keeps; the KV cache grows with it.</source>
        <translation>模型能保留的对话 token 数；KV 缓存随之增大。</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+54"/>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <location line="-50"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Every layer and the output layer on the GPU.</source>
        <translation>所有层和输出层都放在 GPU 上。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Everything on the CPU.</source>
        <translation>全部在 CPU 上运行。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>CPU threads; llama.cpp runs best with one per physical core.</source>
        <translation>CPU 线程数；llama.cpp 在每个物理核心一个线程时表现最好。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>KV cache type</source>
        <translation>KV 缓存类型</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The KV cache&apos;s type: q8_0 halves and q4_0 quarters its memory, at a small cost in quality; a quantized cache needs flash attention.</source>
        <translation>KV 缓存类型：q8_0 使其内存减半，q4_0 减为四分之一，质量略有损失；量化的缓存需要开启 Flash Attention。</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+31"/>
        <source>Flash attention</source>
        <translation>Flash Attention</translation>
    </message>
    <message>
        <location line="-29"/>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>auto: on for a quantized KV cache (llama.cpp needs it there), else off.</source>
        <translation>自动：KV 缓存量化时开启（llama.cpp 需要），否则关闭。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Threads</source>
        <translation>线程</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>What the fit estimator predicts for these settings on the active profile.</source>
        <translation>适配估算器在当前硬件配置下对这些设置的预测。</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+59"/>
        <source>What the loaded model&apos;s worker uses now (refreshed twice a second).</source>
        <translation>已加载模型的工作进程当前的用量（每秒刷新两次）。</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>What the server&apos;s answers measured here (memory: what the server exposes).</source>
        <translation>在本机测得的服务器回答数据（内存：服务器公开的部分）。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Close the connection to the server (the server keeps running).</source>
        <translation>关闭与服务器的连接（服务器继续运行）。</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>the file&apos;s own</source>
        <translation>文件自带</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>by architecture: %1</source>
        <translation>按架构：%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>⚠ Base model, not for chat: this file has no chat template, so it was most likely trained to continue text, not to answer. Its replies to questions may be nonsense; for a chat pick an Instruct model, or give it text to continue.</source>
        <translation>⚠ 基础模型，不适合对话：这个文件没有对话模板，很可能是为续写文本而训练的，而不是为了回答问题。它对问题的回答可能毫无意义；要对话请选择 Instruct 模型，或者给它一段文字让它续写。</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>Layers on the GPU: the fit&apos;s best value is filled in.</source>
        <translation>放到 GPU 上的层数：已填入估算出的最佳值。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>This llama.cpp build runs on the CPU only: nothing is offloaded.</source>
        <translation>当前的 llama.cpp 构建只能在 CPU 上运行：不会卸载任何层到 GPU。</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>A quantized KV cache needs flash attention (auto or on).</source>
        <translation>量化的 KV 缓存需要 Flash Attention（自动或开）。</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Connect</source>
        <translation>连接</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Disconnect</source>
        <translation>断开</translation>
    </message>
    <message>
        <location line="-383"/>
        <source>Where the model runs</source>
        <translation>模型在哪里运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a server (OpenAI-compatible)</source>
        <translation>服务器（OpenAI 兼容）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Run a model file here, or talk to a model behind an OpenAI-compatible server (llama-server, vLLM, Ollama, LM Studio).</source>
        <translation>在本机运行模型文件，或与 OpenAI 兼容服务器（llama-server、vLLM、Ollama、LM Studio）上的模型对话。</translation>
    </message>
    <message>
        <location line="+419"/>
        <source>context %1, GPU layers %2, %3 threads, KV %4</source>
        <translation>上下文 %1，GPU 层数 %2，%3 线程，KV %4</translation>
    </message>
    <message>
        <location filename="../../desktop/ui/widgets/load_texts.py" line="+23"/>
        <source>RAM ≈%1</source>
        <translation>内存 ≈%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>VRAM ≈%1</source>
        <translation>显存 ≈%1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>load ≈%1</source>
        <translation>加载 ≈%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>predicted for %1: %2</source>
        <translation>%1 的预测：%2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The fit says %1 will not fit with these settings.</source>
        <translation>估算显示，在这些设置下 %1 放不下。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Needs about %1 of RAM; %2 is available.</source>
        <translation>需要约 %1 内存；可用 %2。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Needs about %1 of VRAM; %2 is free.</source>
        <translation>需要约 %1 显存；空闲 %2。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Load anyway? The worker may be stopped for lack of memory.</source>
        <translation>仍要加载吗？工作进程可能会因内存不足而被终止。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>RAM %1</source>
        <translation>内存 %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>private %1</source>
        <translation>私有 %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>VRAM %1</source>
        <translation>显存 %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>GPU %1%</source>
        <translation>GPU %1%</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+18"/>
        <source>measured: %1</source>
        <translation>实测：%1</translation>
    </message>
    <message>
        <location line="-12"/>
        <source>memory unknown</source>
        <translation>内存未知</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>server timings</source>
        <translation>服务器计时</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>client</source>
        <translation>客户端</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../desktop/ui/app.py" line="+99"/>
        <source>llama.cpp: the engine could not be started</source>
        <translation>llama.cpp：无法启动引擎</translation>
    </message>
    <message>
        <location filename="../../desktop/ui/main_window.py" line="+67"/>
        <location line="+60"/>
        <source>LLM Scout</source>
        <translation>LLM Scout</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>Profile</source>
        <translation>硬件配置</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Profile:</source>
        <translation>硬件配置：</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Hardware profile</source>
        <translation>硬件配置</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Every estimate follows this profile: this machine, or a what-if machine (a bundled profile, or one saved with `llm-scout hw --save` on another device).</source>
        <translation>所有估算都基于这个配置：本机，或一台假设的机器（内置的配置，或在另一台设备上用 `llm-scout hw --save` 保存的配置）。</translation>
    </message>
    <message>
        <location line="+22"/>
        <location line="+250"/>
        <source>This machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <location line="-246"/>
        <location line="+244"/>
        <source>What if: %1</source>
        <translation>假设：%1</translation>
    </message>
    <message>
        <location line="-241"/>
        <source>Imported: %1</source>
        <translation>已导入：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>File: %1</source>
        <translation>文件：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open profile file…</source>
        <translation>打开配置文件…</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Pages</source>
        <translation>页面</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>%1 (Ctrl+%2)</source>
        <translation>%1（Ctrl+%2）</translation>
    </message>
    <message>
        <location line="+115"/>
        <source>Hardware</source>
        <translation>硬件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Downloads</source>
        <translation>下载</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Library</source>
        <translation>本地模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Playground</source>
        <translation>演练场</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>llama.cpp: checking…</source>
        <translation>llama.cpp：检查中…</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>Open a hardware profile</source>
        <translation>打开硬件配置</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Hardware profiles (*.json)</source>
        <translation>硬件配置 (*.json)</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>A what-if profile is active: estimates are for that machine, not this one.</source>
        <translation>当前使用的是假设配置：估算针对的是那台机器，而不是本机。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Detecting hardware…</source>
        <translation>正在检测硬件…</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>unified</source>
        <translation>统一内存</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 RAM</source>
        <translation>内存 %1</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>⇩ 1 download</source>
        <translation>⇩ 1 个下载</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>⇩ %1 downloads</source>
        <translation>⇩ %1 个下载</translation>
    </message>
</context>
<context>
    <name>MemoryBar</name>
    <message>
        <location filename="../../desktop/ui/widgets/memory_bar.py" line="+80"/>
        <source>weights</source>
        <extracomment>The parts of a breakdown, in drawing order, with their colours.</extracomment>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>overhead</source>
        <translation>额外开销</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>needs %1</source>
        <translation>需要 %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>needs %1 of %2</source>
        <translation>需要 %1（%2）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 short</source>
        <translation>还差 %1</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Predicted: %1.</source>
        <translation>预测：%1。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The dashed outline marks a prediction, not a measurement.</source>
        <translation>虚线框表示预测值，而非实测值。</translation>
    </message>
</context>
<context>
    <name>Metrics</name>
    <message>
        <location filename="../../desktop/ui/widgets/metrics_panel.py" line="+35"/>
        <source>the model ended its answer</source>
        <translation>模型自行结束了回答</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>max tokens reached</source>
        <translation>达到最大 token 数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the context is full</source>
        <translation>上下文已满</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the engine stopped</source>
        <translation>引擎已停止</translation>
    </message>
    <message>
        <location line="+101"/>
        <source>TTFT %1</source>
        <translation>首 token %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>prompt %1 t @ %2</source>
        <translation>提示词 %1 t @ %2</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 t @ %2</source>
        <translation>生成 %1 t @ %2</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>stop: %1</source>
        <translation>结束原因：%1</translation>
    </message>
</context>
<context>
    <name>MetricsPanel</name>
    <message>
        <location line="-93"/>
        <source>machine busy: not compared</source>
        <translation>机器繁忙：不作比较</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The machine was busy: other programs used %1 of the %2 CPUs during the answer, so its speed is not compared with the prediction and does not calibrate the estimates.</source>
        <translation>机器当时很忙：回答期间其他程序占用了 %2 个 CPU 中的 %1 个，因此这次运行的速度不与预测比较，也不用于校准估算。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>The machine was busy: llama.cpp&apos;s threads got only %1 of the CPU time they could use, so its speed is not compared with the prediction and does not calibrate the estimates.</source>
        <translation>机器当时很忙：llama.cpp 的线程只得到了可用 CPU 时间的 %1，因此这次运行的速度不与预测比较，也不用于校准估算。</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>under 1%</source>
        <translation>不到 1%</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Generation ran at %1 of the predicted speed: other programs used %2 of the %3 CPUs during the answer, so this run does not calibrate the estimates.</source>
        <translation>生成速度只有预测的 %1：回答期间其他程序占用了 %3 个 CPU 中的 %2 个，因此这次运行不用于校准估算。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Generation ran at %1 of the predicted speed: llama.cpp&apos;s threads got only %2 of the CPU time they could use, so this run does not calibrate the estimates.</source>
        <translation>生成速度只有预测的 %1：llama.cpp 的线程只得到了可用 CPU 时间的 %2，因此这次运行不用于校准估算。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Generation ran at %1 of the predicted speed: other programs may be using the CPU or GPU, the machine may be throttling (heat, power saving), or the run used fewer threads than the machine has cores.</source>
        <translation>生成速度只有预测的 %1：可能有其他程序在占用 CPU 或 GPU，机器可能在降频（发热、节能），或者运行使用的线程少于机器的核心数。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Generation ran at %1 of the predicted speed: other programs may be using the CPU or GPU, the machine may be throttling (heat, power saving), or the run used fewer threads than the machine has cores (%2 threads).</source>
        <translation>生成速度只有预测的 %1：可能有其他程序在占用 CPU 或 GPU，机器可能在降频（发热、节能），或者运行使用的线程少于机器的核心数（%2 个线程）。</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Predicted and measured</source>
        <translation>预测与实测</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Last answer: predicted vs measured</source>
        <translation>上一次回答：预测与实测</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>predicted</source>
        <translation>预测</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>error</source>
        <translation>误差</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>RAM (peak RSS)</source>
        <translation>内存（峰值 RSS）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  private</source>
        <translation>  私有</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  file-backed</source>
        <translation>  文件映射</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VRAM (peak)</source>
        <translation>显存（峰值）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>generation</source>
        <translation>生成</translation>
    </message>
    <message>
        <location line="+15"/>
        <location line="+95"/>
        <source>Ask something to measure an answer.</source>
        <translation>提一个问题，测量一次回答。</translation>
    </message>
    <message>
        <location line="-78"/>
        <source>Each finished answer also calibrates the estimates for this machine (from the second one on; llm-scout fit --uncalibrated shows the raw model).</source>
        <translation>每个完成的回答也会用来校准本机的估算（从第二个回答起生效；llm-scout fit --uncalibrated 显示未校准的模型估算）。</translation>
    </message>
    <message>
        <location line="+49"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>speed: the server&apos;s own timings</source>
        <translation>速度：服务器自己的计时</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>speed measured on this client (network included)</source>
        <translation>速度在本客户端测得（含网络）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>memory: as the server reports it</source>
        <translation>内存：服务器报告的数值</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>KV cache %1% used</source>
        <translation>KV 缓存已用 %1%</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>memory unknown: the server does not expose it</source>
        <translation>内存未知：服务器未公开</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no prediction: remote</source>
        <translation>无预测：远程</translation>
    </message>
</context>
<context>
    <name>ModelChooser</name>
    <message>
        <location filename="../../desktop/ui/widgets/model_chooser.py" line="+82"/>
        <source>Reading the model file…</source>
        <translation>正在读取模型文件…</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>waiting for the hardware probe</source>
        <translation>正在等待硬件检测</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+34"/>
        <source>No prediction: %1</source>
        <translation>无法预测：%1</translation>
    </message>
    <message>
        <location line="-9"/>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
</context>
<context>
    <name>ModelDetailPanel</name>
    <message>
        <location filename="../../desktop/ui/widgets/model_detail.py" line="+74"/>
        <source>Model details</source>
        <translation>模型详情</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Select a model in the table to see where it would run and why.</source>
        <translation>在表格中选择一个模型，查看它会在哪里运行以及原因。</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>VRAM</source>
        <translation>显存</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Ask llama.cpp</source>
        <translation>询问 llama.cpp</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Load the file in llama.cpp without allocating anything and compare the buffers it would use with this estimate (a second or two).</source>
        <translation>让 llama.cpp 加载该文件但不分配任何内存，把它将使用的缓冲区与本估算对比（一两秒）。</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Largest context</source>
        <translation>最大上下文</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Load time</source>
        <translation>加载时间</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Disk</source>
        <translation>磁盘</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Languages</source>
        <translation>语言</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Why</source>
        <translation>原因</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open in Playground</source>
        <translation>在演练场中打开</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Run with vLLM</source>
        <translation>用 vLLM 运行</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>vLLM command</source>
        <translation>vLLM 命令</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+130"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location line="-128"/>
        <source>Copy the command to the clipboard.</source>
        <translation>将命令复制到剪贴板。</translation>
    </message>
    <message>
        <location line="+58"/>
        <source>Asking llama.cpp…</source>
        <translation>正在询问 llama.cpp…</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>repacked copies</source>
        <translation>重排副本</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>KV cache</source>
        <translation>KV 缓存</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>compute buffers</source>
        <translation>计算缓冲区</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>estimate</source>
        <translation>估算</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>gap</source>
        <translation>差距</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>llama.cpp&apos;s own projection (nothing allocated, %1):</source>
        <translation>llama.cpp 自己的预估（未分配内存，用时 %1）：</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>AWQ runs in a vLLM server (Linux, NVIDIA GPU). Per GPU: %1 on %2.</source>
        <translation>AWQ 模型在 vLLM 服务器中运行（Linux，NVIDIA GPU）。每块 GPU：%2 上 %1。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Not on this profile: %1</source>
        <translation>此配置无法运行：%1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>On the what-if profile %1:</source>
        <translation>在假设配置 %1 上：</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Verdict: %1</source>
        <translation>判定：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Estimating…</source>
        <translation>正在估算…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Estimated for %1 tokens of context.</source>
        <translation>按 %1 个 token 的上下文估算。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The model was trained for %1; answers may degrade past it.</source>
        <translation>模型训练时的上下文为 %1；超过后回答质量可能下降。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Numbers from the file on disk.</source>
        <translation>数据来自磁盘上的文件。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Calibrated from %1 runs measured on %2.</source>
        <translation>已根据在 %2 上实测的 %1 次运行校准。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>that machine</source>
        <translation>那台机器</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Calibrated from %1 measured runs.</source>
        <translation>已根据 %1 次实测运行校准。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>No GPU in this profile: models run in RAM.</source>
        <translation>此配置没有 GPU：模型在内存中运行。</translation>
    </message>
    <message>
        <location line="+6"/>
        <location line="+77"/>
        <source>free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <location line="-73"/>
        <source>available</source>
        <translation>可用</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Plus %1 of page cache of the model file, which the system can drop.</source>
        <translation>另有 %1 是模型文件的页缓存，系统可随时释放。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1 tokens</source>
        <translation>%1 个 token</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>trained for %1</source>
        <translation>训练长度 %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>none fits</source>
        <translation>都放不下</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>(predicted)</source>
        <translation>（预测）</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>from %1</source>
        <translation>来自 %1</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>commercial use: yes</source>
        <translation>可商用：是</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>commercial use: no</source>
        <translation>可商用：否</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>no Chinese</source>
        <translation>不支持中文</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>On disk: %1</source>
        <translation>磁盘：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+33"/>
        <source>Download %1</source>
        <translation>下载 %1</translation>
    </message>
    <message>
        <location line="-29"/>
        <source>fits on the disk</source>
        <translation>磁盘空间足够</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>does not fit on the disk</source>
        <translation>磁盘空间不足</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+14"/>
        <source>Downloaded</source>
        <translation>已下载</translation>
    </message>
    <message>
        <location line="-12"/>
        <source>The files are on this machine.</source>
        <translation>文件已在本机上。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Downloading…</source>
        <translation>正在下载…</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The Downloads page shows its progress.</source>
        <translation>在“下载”页可以查看进度。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Downloading: follow it, pause or cancel it on the Downloads page.</source>
        <translation>正在下载：可在“下载”页查看进度、暂停或取消。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Paused: resume it on the Downloads page.</source>
        <translation>已暂停：可在“下载”页继续。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Downloaded; the library is being updated.</source>
        <translation>已下载；正在更新本地模型库。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Download every file of %1 from %2 into the models folder.</source>
        <translation>从 %2 下载 %1 的全部文件到模型文件夹。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1: the size is estimated from the model&apos;s shapes, not verified against the Hub.</source>
        <translation>%1：该大小根据模型形状估算，未经 Hub 核实。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The last download failed; the Downloads page says why.</source>
        <translation>上次下载失败；原因见“下载”页。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>The Playground runs GGUF files with llama.cpp; AWQ is for vLLM.</source>
        <translation>演练场使用 llama.cpp 运行 GGUF 文件；AWQ 需要 vLLM。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Download the model first.</source>
        <translation>请先下载模型。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Chat with this model and watch its speed and memory.</source>
        <translation>与这个模型对话，并观察它的速度和内存占用。</translation>
    </message>
</context>
<context>
    <name>ModelLoader</name>
    <message>
        <location filename="../../desktop/ui/widgets/model_loader.py" line="+90"/>
        <source>This model will probably not fit</source>
        <translation>这个模型可能放不下</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Load anyway</source>
        <translation>仍然加载</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>Unloaded %1.</source>
        <translation>已卸载 %1。</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>loaded in %1</source>
        <translation>加载用时 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>(≈%1 predicted)</source>
        <translation>（预测 ≈%1）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the file&apos;s own</source>
        <translation>文件自带</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>chosen by architecture</source>
        <translation>按架构选择</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>chosen by you</source>
        <translation>由你选择</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>your Jinja text</source>
        <translation>你的 Jinja 文本</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Loaded %1 (%2) · chat template: %3 (%4)</source>
        <translation>已加载 %1（%2）· 聊天模板：%3（%4）</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>The fit predicts %1 of RAM; %2 is available.</source>
        <translation>估算需要 %1 内存；可用 %2。</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Connecting failed: %1</source>
        <translation>连接失败：%1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>The server failed: %1</source>
        <translation>服务器出错：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Loading failed: %1</source>
        <translation>加载失败：%1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>The engine stopped: %1</source>
        <translation>引擎已停止：%1</translation>
    </message>
</context>
<context>
    <name>ModelsPage</name>
    <message>
        <location filename="../../desktop/ui/pages/models.py" line="+144"/>
        <source>Models in the catalog</source>
        <extracomment>Columns shown only when the table has room for them next to a readable model name (decided once, on the first show; the header&apos;s menu shows or hides any column later). The family is the model name&apos;s first word and a filter; the licence is in the detail panel too. The widest a column gets when fitted to its contents (the tooltip has the full text).</extracomment>
        <translation>目录中的模型</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>All models</source>
        <translation>全部模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recommended</source>
        <translation>推荐</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>GPU = all layers on the GPU</source>
        <translation>GPU = 所有层都在 GPU 上</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>partial = N of M layers on the GPU</source>
        <translation>部分 = M 层中有 N 层在 GPU 上</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>CPU = runs in RAM</source>
        <translation>CPU = 在内存中运行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no = does not fit</source>
        <translation>放不下 = 内存不够</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>≈ predicted</source>
        <translation>≈ 预测值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>~ size not verified</source>
        <translation>~ 大小未核实</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>⚠ past the trained context</source>
        <translation>⚠ 超出训练上下文</translation>
    </message>
    <message>
        <location line="+184"/>
        <source>Detecting this machine…</source>
        <translation>正在检测本机…</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Estimating…</source>
        <translation>正在估算…</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>No estimate: %1</source>
        <translation>无法估算：%1</translation>
    </message>
</context>
<context>
    <name>Notices</name>
    <message>
        <location filename="../../desktop/ui/notices.py" line="+21"/>
        <source>The history database was damaged (%1). It was moved to %2, and a new history was started with the %3 rows that could still be read.</source>
        <translation>历史记录数据库已损坏（%1）。它已被移到 %2，并已用仍可读取的 %3 行数据建立新的历史记录。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The history database was damaged (%1). It was moved to %2, and a new, empty history was started.</source>
        <translation>历史记录数据库已损坏（%1）。它已被移到 %2，并已建立新的空白历史记录。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The library database was damaged (%1). It was moved to %2, and the library is being rebuilt by a scan of your folders.</source>
        <translation>模型库数据库已损坏（%1）。它已被移到 %2，正在扫描你的文件夹以重建模型库。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>A database was damaged (%1). It was moved to %2, and a new one was started.</source>
        <translation>数据库已损坏（%1）。它已被移到 %2，并已建立新的数据库。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>The setting %1 in %2 has a value that cannot be used (%3); its default is used.</source>
        <translation>%2 中的设置 %1 的值无法使用（%3）；已改用默认值。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>The settings file %1 was written by a newer version of LLM Scout: the settings this version knows are used, and the file is copied aside before it is first changed.</source>
        <translation>设置文件 %1 由更新版本的 LLM Scout 写入：本版本认识的设置照常使用，首次修改前会先把该文件另存一份副本。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The settings file could not be read (%1). It was moved to %2, and the defaults are used.</source>
        <translation>无法读取设置文件（%1）。它已被移到 %2，现使用默认设置。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The settings file %1 could not be read (%2); the defaults are used.</source>
        <translation>无法读取设置文件 %1（%2）；现使用默认设置。</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>LLM Scout</source>
        <translation>LLM Scout</translation>
    </message>
</context>
<context>
    <name>ParetoChart</name>
    <message>
        <location filename="../../desktop/ui/widgets/pareto_chart.py" line="+47"/>
        <source>Quality against predicted speed</source>
        <translation>质量与预测速度</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>predicted tokens/s (log scale)</source>
        <translation>预测 token/s（对数刻度）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>quality (0-100)</source>
        <translation>质量（0-100）</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>%1 variants; the line joins the Pareto front: no other variant is both better and faster. Up and right is better. Point at a dot to name it.</source>
        <translation>%1 个变体；连线为帕累托前沿：没有其他变体同时更好且更快。越靠右上越好。指向一个点可显示其名称。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No variant with a published score fits here.</source>
        <translation>没有已公布分数的变体能在此运行。</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>%1 · quality %2 · %3</source>
        <translation>%1 · 质量 %2 · %3</translation>
    </message>
</context>
<context>
    <name>PickCard</name>
    <message>
        <location filename="../../desktop/ui/widgets/recommend_view.py" line="+99"/>
        <source>%1: rank %2 of all the variants that fit</source>
        <translation>%1：在所有可运行的变体中排第 %2</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>%1. %2 · %3</source>
        <translation>%1. %2 · %3</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>on the front</source>
        <translation>在前沿上</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>no published score</source>
        <translation>无已公布分数</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>quality %1</source>
        <translation>质量 %1</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+20"/>
        <source>measured here</source>
        <translation>本机实测</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>No published score for this task.</source>
        <translation>此任务没有已公布的分数。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 %2: beats %3% of %4 other models</source>
        <translation>%1 %2：高于其他 %4 个模型中的 %3%</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>thinking on</source>
        <translation>开启思考</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>independent</source>
        <translation>第三方</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Sources:</source>
        <translation>来源：</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>IFEval (strict prompt)</source>
        <translation>IFEval（严格提示）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>IFEval (Meta&apos;s average)</source>
        <translation>IFEval（Meta 的平均值）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>IFEval (metric not stated)</source>
        <translation>IFEval（未注明指标）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>LiveCodeBench (version not stated)</source>
        <translation>LiveCodeBench（未注明版本）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>RULER (4K-128K average)</source>
        <translation>RULER（4K-128K 平均）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>RULER at 128K</source>
        <translation>RULER（128K）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>multi-needle recall</source>
        <translation>多针检索召回率</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1: perplexity ×%2, measured here</source>
        <translation>%1：困惑度 ×%2，本机实测</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 keeps the same top token %2% of the time (KLD %3, %4)</source>
        <translation>%1 有 %2% 的时间保持相同的首选 token（KLD %3，%4）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1: perplexity ×%2 (KLD %3, %4)</source>
        <translation>%1：困惑度 ×%2（KLD %3，%4）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1: perplexity ×%2 (%4)</source>
        <translation>%1：困惑度 ×%2（%4）</translation>
    </message>
</context>
<context>
    <name>PlaceholderPage</name>
    <message>
        <location filename="../../desktop/ui/pages/placeholder.py" line="+17"/>
        <source>Playground</source>
        <translation>演练场</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Chat with a model while watching tokens/s, RAM and VRAM live, predicted next to measured. Until then, `llm-scout run MODEL --chat` does it in a terminal.</source>
        <translation>与模型对话，同时实时观察 tokens/s、内存和显存，预测值与实测值并列显示。在此之前，可以在终端中用 `llm-scout run MODEL --chat` 实现。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Compare</source>
        <translation>对比</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The same prompts on two to six models side by side, with speed, memory and blind votes. Coming in a later version.</source>
        <translation>在二到六个模型上并排运行相同的提示词，对比速度、内存，并进行盲测投票。将在以后的版本中提供。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Every run and comparison, stored and searchable. Coming in a later version.</source>
        <translation>保存每一次运行和对比，并可搜索。将在以后的版本中提供。</translation>
    </message>
</context>
<context>
    <name>PlaygroundPage</name>
    <message>
        <location filename="../../desktop/ui/pages/playground.py" line="+311"/>
        <source>Open a model</source>
        <translation>打开模型</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <location line="+98"/>
        <source>Clear the conversation</source>
        <translation>清空对话</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Clear the conversation (one answer)?</source>
        <translation>清空对话（1 个回答）？</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Clear the conversation (%1 answers)?</source>
        <translation>清空对话（%1 个回答）？</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Each answer stays in History; Copy or Save… keeps the conversation.</source>
        <translation>每个回答都会保留在历史记录中；用“复制”或“保存…”可以保留整段对话。</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>stop: %1</source>
        <translation>结束原因：%1</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Save the conversation</source>
        <translation>保存对话</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Markdown (*.md);;JSON with settings and metrics (*.json)</source>
        <translation>Markdown (*.md);;含设置和指标的 JSON (*.json)</translation>
    </message>
</context>
<context>
    <name>QualityChoice</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_quality.py" line="-247"/>
        <source>Quality check</source>
        <translation>质量检查</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Quality check after the answers</source>
        <translation>回答之后的质量检查</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>After the answers, measure every model on the same questions or text, one after another; the results are kept in History.</source>
        <translation>回答之后，用同样的题目或文本逐个测量每个模型；结果保存在历史记录中。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>GAOKAO-Bench questions (shipped)</source>
        <translation>GAOKAO-Bench 题目（内置）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Questions from a folder…</source>
        <translation>文件夹中的题目…</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loss against a reference…</source>
        <translation>相对参考的损失…</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Questions</source>
        <translation>题数</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Most questions per model</source>
        <translation>每个模型最多的题数</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>on</source>
        <translation>文本</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Text the loss is measured on</source>
        <translation>计算损失所用的文本</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The reference and every model are scored on this text, in chunks.</source>
        <translation>参考模型和每个模型都在这段文本上分块评分。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>on the pack&apos;s own text</source>
        <translation>使用参考包自带的文本</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>A reference pack holds what its model said on its own text: that one.</source>
        <translation>参考包保存了其模型在自带文本上的输出：评分就用这段文本。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Minutes per model</source>
        <translation>每个模型的分钟数</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Time budget per model, in minutes</source>
        <translation>每个模型的时间预算（分钟）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What is measured by then counts.</source>
        <translation>到时为止测得的结果有效。</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>A folder of questions (C-Eval, CMMLU or MMLU layout)</source>
        <translation>题目文件夹（C-Eval、CMMLU 或 MMLU 格式）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The reference: a GGUF model or a reference pack</source>
        <translation>参考：GGUF 模型或参考包</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Reference (*.gguf *.refpack);;All files (*)</source>
        <translation>参考 (*.gguf *.refpack);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>QualityDialog</name>
    <message>
        <location filename="../../desktop/ui/widgets/quality_dialog.py" line="+125"/>
        <source>Quality of %1</source>
        <translation>%1 的质量</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>What a quantization loses, against a reference</source>
        <translation>量化损失（与参考模型对比）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Multiple-choice accuracy</source>
        <translation>选择题准确率</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Measure</source>
        <translation>测量</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+18"/>
        <location line="+123"/>
        <source>Reference</source>
        <translation>参考</translation>
    </message>
    <message>
        <location line="-134"/>
        <source>This model itself (checks the method: 0)</source>
        <translation>模型自身（检验方法：结果应为 0）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>A reference pack or GGUF file…</source>
        <translation>参考包或 GGUF 文件…</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The model to compare with: the same model less quantized (F16, BF16, Q8_0), with the same tokenizer. A reference pack holds what such a model said, without the model.</source>
        <translation>用于对比的模型：同一模型量化程度更低的版本（F16、BF16、Q8_0），分词器相同。参考包保存了这样一个模型的输出，无需模型本身。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>A text file…</source>
        <translation>文本文件…</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+125"/>
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location line="-119"/>
        <source>tokens</source>
        <translation>个 token</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Each chunk&apos;s first half is context, its second half is scored (as llama.cpp&apos;s perplexity tool does).</source>
        <translation>每个分块的前一半作为上下文，后一半参与评分（与 llama.cpp 的困惑度工具相同）。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Chunk length</source>
        <translation>分块长度</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>GAOKAO-Bench, 1,241 questions (shipped)</source>
        <translation>GAOKAO-Bench，1,241 道题（内置）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A folder in the C-Eval, CMMLU or MMLU layout…</source>
        <translation>C-Eval、CMMLU 或 MMLU 格式的文件夹…</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+108"/>
        <source>Questions</source>
        <translation>题目</translation>
    </message>
    <message>
        <location line="-105"/>
        <source>Likelihood of the answer letter</source>
        <translation>答案字母的似然</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Likelihood of each option&apos;s text</source>
        <translation>各选项文本的似然</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scoring</source>
        <translation>评分方式</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>At most</source>
        <translation>最多</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>min</source>
        <translation>分钟</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>What is measured by then is the result, with its interval; more time narrows the interval.</source>
        <translation>到时为止测得的部分即为结果，并附置信区间；时间越长，区间越窄。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Time budget</source>
        <translation>时间预算</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="+59"/>
        <source>Models and reference packs (*.gguf *.refpack);;All files (*)</source>
        <translation>模型和参考包 (*.gguf *.refpack);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Text files (*.txt *.md);;All files (*)</source>
        <translation>文本文件 (*.txt *.md);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>Choose a reference first.</source>
        <translation>请先选择参考。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>chunks</source>
        <translation>分块</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>KL divergence</source>
        <translation>KL 散度</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+25"/>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>questions</source>
        <translation>题目</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Stopping after the current step…</source>
        <translation>完成当前步骤后停止…</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Question %1 of %2 · accuracy %3 % (95% interval %4) · %5</source>
        <translation>第 %1 / %2 题 · 准确率 %3 %（95% 区间 %4）· %5</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Checking that the two models share a vocabulary…</source>
        <translation>正在检查两个模型的词表是否相同…</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Reference pass: chunk %1 of %2 · %3</source>
        <translation>参考模型：第 %1 / %2 块 · %3</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Model: chunk %1 of %2 · KL divergence %3 (95% interval %4) · %5</source>
        <translation>模型：第 %1 / %2 块 · KL 散度 %3（95% 区间 %4）· %5</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Done: %1 against %2.</source>
        <translation>完成：%1 对比 %2。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Done: %1 questions answered.</source>
        <translation>完成：已回答 %1 道题。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Kept in the history (this machine).</source>
        <translation>已保存到历史记录（本机）。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Not kept in the history: %1</source>
        <translation>未保存到历史记录：%1</translation>
    </message>
</context>
<context>
    <name>QualityResults</name>
    <message>
        <location filename="../../desktop/ui/widgets/quality_results.py" line="+130"/>
        <source>needs two chunks</source>
        <translation>至少需要两个分块</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>KL divergence</source>
        <translation>KL 散度</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Same top token</source>
        <translation>首选 token 相同率</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Perplexity</source>
        <translation>困惑度</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Reference perplexity</source>
        <translation>参考模型困惑度</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>ΔPPL</source>
        <translation>ΔPPL</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>KLD 99th percentile</source>
        <translation>KLD 第 99 百分位</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Tokens scored</source>
        <translation>评分 token 数</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Speed</source>
        <translation>速度</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Measure</source>
        <translation>指标</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Value</source>
        <translation>数值</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+28"/>
        <source>95% interval</source>
        <translation>95% 区间</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Subject</source>
        <translation>科目</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Questions</source>
        <translation>题数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>below %1 (%2)</source>
        <translation>低于 %1（%2）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>above %1 (%2)</source>
        <translation>高于 %1（%2）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>between %1 (%2) and %3 (%4)</source>
        <translation>介于 %1（%2）与 %3（%4）之间</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>On llama.cpp&apos;s published scale (Llama 3 8B against F16) this KL divergence lies %1. How much a quant loses depends on the model: read it as an order of magnitude.</source>
        <translation>按 llama.cpp 公布的标尺（Llama 3 8B 对比 F16），此 KL 散度%1。量化损失多少取决于模型，请仅作量级参考。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>chunks</source>
        <translation>个分块</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Accuracy %1 % (95% interval %2); random answers would score %3 %.</source>
        <translation>准确率 %1 %（95% 区间 %2）；随机作答的准确率为 %3 %。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 questions were longer than the context and skipped.</source>
        <translation>%1 道题超出上下文长度，已跳过。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>questions</source>
        <translation>道题</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the time budget ran out</source>
        <translation>时间预算已用完</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>it was stopped</source>
        <translation>已被停止</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Measured on %1 of %2 %3 (%4).</source>
        <translation>仅基于 %1 / %2 %3测得（%4）。</translation>
    </message>
</context>
<context>
    <name>QualitySpeedChart</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_quality_chart.py" line="+39"/>
        <source>Measured quality against generation speed</source>
        <translation>测得的质量与生成速度</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>generation tokens/s (log scale)</source>
        <translation>生成 token/秒（对数刻度）</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+21"/>
        <source>quality (%)</source>
        <translation>质量（%）</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>accuracy (%)</source>
        <translation>准确率（%）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>same top token as the reference (%)</source>
        <translation>首选 token 与参考相同（%）</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>Up and right is better. The line joins the Pareto front.</source>
        <translation>越靠右上越好。连线为帕累托前沿。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Up and right is better. The line joins the Pareto front: no other model is both better and faster here.</source>
        <translation>越靠右上越好。连线为帕累托前沿：没有其他模型在这里既更好又更快。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>A quality check in the setup puts each model&apos;s quality against its speed.</source>
        <translation>在设置中选择质量检查后，这里会画出每个模型的质量与速度。</translation>
    </message>
</context>
<context>
    <name>QualityTable</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_quality.py" line="+184"/>
        <source>Quality of every model</source>
        <translation>每个模型的质量</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Quality (%1)</source>
        <translation>质量（%1）</translation>
    </message>
    <message>
        <location line="-9"/>
        <source>multiple choice</source>
        <translation>选择题</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>loss against %1</source>
        <translation>相对 %1 的损失</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>loss against %1 on %2</source>
        <translation>在%2上相对 %1 的损失</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Result (95% interval)</source>
        <translation>结果（95% 区间）</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Measured on</source>
        <translation>测量范围</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>not measured yet</source>
        <translation>尚未测量</translation>
    </message>
</context>
<context>
    <name>QualityText</name>
    <message>
        <location filename="../../desktop/ui/i18n.py" line="+46"/>
        <source>English text (shipped)</source>
        <translation>英文文本（内置）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Chinese text (shipped)</source>
        <translation>中文文本（内置）</translation>
    </message>
</context>
<context>
    <name>RecommendView</name>
    <message>
        <location filename="../../desktop/ui/widgets/recommend_view.py" line="+42"/>
        <source>Chat and instructions</source>
        <translation>对话与指令</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Code</source>
        <translation>编程</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Chinese (中文)</source>
        <translation>中文</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reasoning and maths</source>
        <translation>推理与数学</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Long context</source>
        <translation>长上下文</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Best for:</source>
        <translation>最适合：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Best for</source>
        <translation>最适合</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>at least</source>
        <translation>至少</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Minimum predicted speed</source>
        <translation>最低预测速度</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>tokens/s</source>
        <translation>token/s</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Leave out variants predicted slower than this (0: keep all).</source>
        <translation>排除预测速度低于此值的变体（0：全部保留）。</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>Quality = task score × the share the quantization keeps (FP16 / quantized perplexity). The task score puts each published score on one scale: its percentile among the catalog&apos;s models with a score on that benchmark, averaged over the task&apos;s benchmarks.</source>
        <translation>质量 = 任务得分 × 量化保留的比例（FP16 困惑度 / 量化后困惑度）。任务得分把每个已公布的分数放到同一尺度上：它在目录中该基准有分数的模型里的百分位，再对任务的各基准取平均。</translation>
    </message>
    <message>
        <location line="+101"/>
        <source>Waiting for the estimate…</source>
        <translation>正在等待估算…</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Nothing fits %1 at %2 tokens of context.</source>
        <translation>在 %2 token 上下文下，%1 上没有能运行的模型。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Best for %1 on %2 at %3 tokens: %4 variants fit; the best of each model first.</source>
        <translation>在 %2 上、%3 token 上下文下最适合%1的模型：%4 个变体可运行；每个模型只列出最佳变体，按优劣排序。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Ranked from %1 published scores in %2 sources (%3 reported by the model&apos;s own vendor): vendors&apos; numbers are only compared within one benchmark.</source>
        <translation>依据 %2 个来源中的 %1 个已公布分数排序（其中 %3 个由模型厂商自己公布）：各厂商的数字只在同一基准内比较。</translation>
    </message>
</context>
<context>
    <name>RemoteSource</name>
    <message>
        <location filename="../../desktop/ui/widgets/remote_source.py" line="+72"/>
        <location line="+58"/>
        <location line="+10"/>
        <source>no prediction: remote</source>
        <translation>无预测：远程</translation>
    </message>
    <message>
        <location line="-25"/>
        <source>The server lists no models.</source>
        <translation>服务器没有列出任何模型。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>memory unknown: the server does not expose it</source>
        <translation>内存未知：服务器未公开</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>not measured: remote</source>
        <translation>未测量：远程</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>connected in %1</source>
        <translation>%1 内连接</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Connected to %1 at %2 · context %3 tokens</source>
        <translation>已连接 %2 上的 %1 · 上下文 %3 个 token</translation>
    </message>
</context>
<context>
    <name>RemoveQuestion</name>
    <message>
        <location filename="../../desktop/ui/widgets/library_remove.py" line="+26"/>
        <source>Remove from the library</source>
        <translation>从本地模型库移除</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Delete %1 from the disk?</source>
        <translation>要从磁盘上删除 %1 吗？</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>LLM Scout downloaded it into the models folder. Its file (%2) will be deleted; you can download it again later.</source>
        <translation>这是 LLM Scout 下载到模型文件夹中的模型。它的文件（%2）将被删除；之后可以重新下载。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>LLM Scout downloaded it into the models folder. Its %1 files (%2) will be deleted; you can download it again later.</source>
        <translation>这是 LLM Scout 下载到模型文件夹中的模型。它的 %1 个文件（%2）将被删除；之后可以重新下载。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Forget %1?</source>
        <translation>要忘记 %1 吗？</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>The file stays on the disk: LLM Scout only deletes models it downloaded.</source>
        <translation>文件会保留在磁盘上：LLM Scout 只删除自己下载的模型。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>A rescan finds it again while it is in a scanned folder.</source>
        <translation>只要它还在被扫描的文件夹中，重新扫描时就会再次找到它。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Forget</source>
        <translation>忘记</translation>
    </message>
</context>
<context>
    <name>ResultsTransfer</name>
    <message>
        <location filename="../../desktop/ui/widgets/results_transfer.py" line="+70"/>
        <source>Import results from another machine</source>
        <translation>导入另一台机器的结果</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>LLM Scout results (*.jsonl);;All files (*)</source>
        <translation>LLM Scout 结果 (*.jsonl);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Export this history&apos;s results</source>
        <translation>导出本历史记录中的结果</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>LLM Scout results (*.jsonl)</source>
        <translation>LLM Scout 结果 (*.jsonl)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Importing %1…</source>
        <translation>正在导入 %1…</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>another machine</source>
        <translation>另一台机器</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Nothing new in %1: everything in it is already here.</source>
        <translation>%1 中没有新内容：其中的一切都已在这里。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Imported from %1. Answers: %2; comparisons: %3 (their answers: %4); measurements: %5; calibration runs: %6.</source>
        <translation>已从 %1 导入。回答：%2；对比：%3（其中回答：%4）；测量：%5；校准运行：%6。</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>This machine is still being probed; try again in a moment.</source>
        <translation>仍在检测本机硬件，请稍后再试。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Exporting to %1…</source>
        <translation>正在导出到 %1…</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Wrote %1 (%2) as %6. Answers: %3; comparisons: %4; measurements: %5.</source>
        <translation>已写入 %1（%2），机器名为 %6。回答：%3；对比：%4；测量：%5。</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Estimates now follow %1, calibrated by its own runs: see the Models page.</source>
        <translation>现在所有估算都按 %1 进行，并用它自己的运行结果校准：请查看“模型”页。</translation>
    </message>
</context>
<context>
    <name>ServerFields</name>
    <message>
        <location filename="../../desktop/ui/widgets/server_fields.py" line="+38"/>
        <source>Server base URL</source>
        <translation>服务器基础 URL</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The server&apos;s OpenAI-compatible base URL; it usually ends in /v1.</source>
        <translation>服务器的 OpenAI 兼容基础 URL，通常以 /v1 结尾。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Model name on the server</source>
        <translation>服务器上的模型名称</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>model name</source>
        <translation>模型名称</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+80"/>
        <source>List models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <location line="-78"/>
        <source>Ask the server which models it serves.</source>
        <translation>询问服务器提供哪些模型。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Environment variable with the API key</source>
        <translation>存放 API 密钥的环境变量</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>The name of the environment variable that holds the API key (the key itself is never typed or stored here); empty: LLM_SCOUT_API_KEY, else the keyring.</source>
        <translation>存放 API 密钥的环境变量名（密钥本身从不在此输入或保存）；留空：LLM_SCOUT_API_KEY，否则使用系统密钥环。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>API key variable</source>
        <translation>API 密钥变量</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>Listing…</source>
        <translation>正在列出…</translation>
    </message>
</context>
<context>
    <name>SettingsPage</name>
    <message>
        <location filename="../../desktop/ui/pages/settings.py" line="+46"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location line="+20"/>
        <location line="+7"/>
        <location line="+199"/>
        <source>Models folder</source>
        <translation>模型文件夹</translation>
    </message>
    <message>
        <location line="-204"/>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Downloads go here, in &lt;owner&gt;/&lt;repo&gt;/&lt;file&gt;.</source>
        <translation>下载的文件保存在这里，路径为 &lt;owner&gt;/&lt;repo&gt;/&lt;file&gt;。</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+18"/>
        <source>Library folders</source>
        <translation>模型库文件夹</translation>
    </message>
    <message>
        <location line="-13"/>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Hugging Face endpoint</source>
        <translation>Hugging Face 地址</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>From HF_ENDPOINT, else huggingface.co</source>
        <translation>取自 HF_ENDPOINT，未设置时为 huggingface.co</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>huggingface.co</source>
        <translation>huggingface.co</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>hf-mirror.com (mirror for mainland China)</source>
        <translation>hf-mirror.com（中国大陆镜像）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Another address…</source>
        <translation>其他地址…</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Hub endpoint</source>
        <translation>Hub 地址</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Hugging Face token</source>
        <translation>Hugging Face 令牌</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>physical cores</source>
        <translation>物理核心数</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Default threads</source>
        <translation>默认线程数</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>tokens</source>
        <translation>token</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Default context</source>
        <translation>默认上下文</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>s</source>
        <translation>秒</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Remote engine timeout</source>
        <translation>远程引擎超时</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>How long a server (llama-server, Ollama, vLLM) may stay silent before its answer is given up.</source>
        <translation>服务器（llama-server、Ollama、vLLM）无响应多久后放弃这次回答。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>System language</source>
        <translation>跟随系统语言</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Automatic: ~30 Hz, ~5 Hz while llama.cpp uses every CPU</source>
        <translation>自动：约 30 Hz；llama.cpp 占用全部 CPU 时约 5 Hz</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smooth: ~30 Hz</source>
        <translation>流畅：约 30 Hz</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Light: ~5 Hz</source>
        <translation>轻量：约 5 Hz</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Live plots</source>
        <translation>实时图表</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>How often the Playground redraws its plots and the streamed text while a model answers. Drawing takes CPU time from llama.cpp&apos;s threads when they use every CPU, and so lowers the speed being measured.</source>
        <translation>模型作答时演练场重绘图表和流式文本的频率。当 llama.cpp 的线程占用全部 CPU 时，绘制会占用它们的 CPU 时间，从而降低测得的速度。</translation>
    </message>
    <message>
        <location line="+41"/>
        <source>Set (from the %1 environment variable).</source>
        <translation>已设置（来自环境变量 %1）。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Set (from `hf auth login`).</source>
        <translation>已设置（来自 `hf auth login`）。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Not set. Gated models (Llama, Gemma) need one: accept the licence on the model&apos;s page, then set HF_TOKEN or run `hf auth login`.</source>
        <translation>未设置。受限模型（Llama、Gemma）需要令牌：先在模型页面上接受许可协议，然后设置 HF_TOKEN 或运行 `hf auth login`。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Add a folder of GGUF models</source>
        <translation>添加存放 GGUF 模型的文件夹</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>There is no folder at %1.</source>
        <translation>%1 处没有文件夹。</translation>
    </message>
</context>
<context>
    <name>Shortcuts</name>
    <message>
        <location filename="../../desktop/ui/shortcuts.py" line="+50"/>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
</context>
<context>
    <name>Sparkline</name>
    <message>
        <location filename="../../desktop/ui/widgets/compare_column.py" line="-46"/>
        <source>Generation tokens/s while the answers streamed</source>
        <translation>回答生成过程中的 tokens/s</translation>
    </message>
</context>
<context>
    <name>Suites</name>
    <message>
        <location filename="../../desktop/ui/suite_texts.py" line="+17"/>
        <source>Chinese (reasoning, writing, knowledge)</source>
        <translation>中文（推理、写作、知识）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reasoning, writing and general knowledge in Simplified Chinese.</source>
        <translation>简体中文的推理、写作和常识。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Coding</source>
        <translation>编程</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Small programming tasks: write a function, find a bug, read code, complexity.</source>
        <translation>小型编程任务：写函数、找错误、读代码、分析复杂度。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>General (English)</source>
        <translation>通用（英文）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Knowledge, short reasoning, instruction following and writing in English.</source>
        <translation>英文的知识、简短推理、指令遵循和写作。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Long context</source>
        <translation>长上下文</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>One question over 4k, 16k and 32k tokens of generated harbour records: shows the KV cache growing and the time to first token with the length of the prompt. Needs a context of about 33k tokens for the last prompt.</source>
        <translation>针对 4k、16k 和 32k token 的生成港口记录各提一个问题：展示 KV 缓存和首 token 时间随提示词长度的增长。最后一个提示词需要约 33k token 的上下文。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Summarisation</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Summaries of short texts written for this suite: news, a recall notice, a meeting, an abstract, a review, an email thread.</source>
        <translation>为本提示词集编写的短文摘要：新闻、召回通知、会议、论文摘要、评论、邮件往来。</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>English</source>
        <translation>英文</translation>
    </message>
</context>
<context>
    <name>SummaryModel</name>
    <message>
        <location filename="../../desktop/ui/models/compare_summary.py" line="+57"/>
        <source>Model</source>
        <extracomment>The columns a blind comparison hides until Reveal: they give the models away.</extracomment>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Quant</source>
        <translation>量化</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Context</source>
        <translation>上下文</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>TTFT ms</source>
        <translation>首 token 毫秒</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Prompt tok/s</source>
        <translation>提示词 tok/s</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Gen tok/s</source>
        <translation>生成 tok/s</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Peak private RAM</source>
        <translation>私有内存峰值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Peak VRAM</source>
        <translation>显存峰值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>RAM predicted / measured</source>
        <translation>内存 预测 / 实测</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checks</source>
        <translation>检查</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Votes</source>
        <translation>投票</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Time to first token, median over the answers</source>
        <translation>首 token 延迟，各回答的中位数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Prompt processing speed, median over the answers</source>
        <translation>提示词处理速度，各回答的中位数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Generation speed, median over the answers</source>
        <translation>生成速度，各回答的中位数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Memory only the worker holds, its peak</source>
        <translation>工作进程独占的内存峰值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The worker&apos;s own video memory, its peak (NVIDIA)</source>
        <translation>工作进程自身的显存峰值（NVIDIA）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The fit&apos;s prediction for the same settings next to the measured peak resident set, and the error</source>
        <translation>相同设置下的估算值与实测常驻内存峰值对照，以及误差</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Checks of the prompt suite the answers passed</source>
        <translation>回答通过的提示词集检查数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Blind votes: wins, ties, losses, and the win rate</source>
        <translation>盲测投票：胜、平、负及胜率</translation>
    </message>
    <message>
        <location line="+67"/>
        <source>(failed)</source>
        <translation>（失败）</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>(server timings)</source>
        <translation>（服务器计时）</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>no prediction: remote</source>
        <translation>无预测：远程</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+8"/>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>KV cache %1% used</source>
        <translation>KV 缓存已用 %1%</translation>
    </message>
</context>
<context>
    <name>TranscriptView</name>
    <message>
        <location filename="../../desktop/ui/widgets/transcript.py" line="+124"/>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <location line="+67"/>
        <source>System: %1</source>
        <translation>系统：%1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Copy this message</source>
        <translation>复制这条消息</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
</context>
<context>
    <name>VllmServerBox</name>
    <message>
        <location filename="../../desktop/ui/widgets/vllm_server_box.py" line="+81"/>
        <source>Waiting for the vLLM server</source>
        <translation>正在等待 vLLM 服务器</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Start server</source>
        <translation>启动服务器</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Run this command here as a server on 127.0.0.1, managed by LLM Scout: it stops when you stop it or close the window.</source>
        <translation>在本机以 127.0.0.1 上的服务器运行此命令，由 LLM Scout 管理：停止它或关闭窗口时它会停止。</translation>
    </message>
    <message>
        <location line="+5"/>
        <location line="+77"/>
        <source>Stop server</source>
        <translation>停止服务器</translation>
    </message>
    <message>
        <location line="-74"/>
        <source>Open in Playground</source>
        <translation>在演练场中打开</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Chat with the served model in the Playground, connected to this server.</source>
        <translation>在演练场中连接此服务器，与其提供的模型对话。</translation>
    </message>
    <message>
        <location line="+11"/>
        <location line="+228"/>
        <source>Show the server log</source>
        <translation>显示服务器日志</translation>
    </message>
    <message>
        <location line="-222"/>
        <source>vLLM server log</source>
        <translation>vLLM 服务器日志</translation>
    </message>
    <message>
        <location line="+37"/>
        <source>Starting the vLLM server for %1…</source>
        <translation>正在为 %1 启动 vLLM 服务器…</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>vLLM serves %1 at %2.</source>
        <translation>vLLM 在 %2 提供 %1。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Stopping the vLLM server…</source>
        <translation>正在停止 vLLM 服务器…</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>To start it here: %1</source>
        <translation>要在本机启动：%1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>The server could not start: %1</source>
        <translation>服务器无法启动：%1</translation>
    </message>
    <message>
        <location line="+63"/>
        <source>Waiting for the vLLM server to answer: %1 s (it may take minutes).</source>
        <translation>正在等待 vLLM 服务器响应：%1 秒（可能需要几分钟）。</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>The vLLM server was stopped.</source>
        <translation>vLLM 服务器已停止。</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>The vLLM server exited (code %1); its log: %2</source>
        <translation>vLLM 服务器已退出（代码 %1）；日志：%2</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Hide the server log</source>
        <translation>隐藏服务器日志</translation>
    </message>
</context>
<context>
    <name>VoteRatingsView</name>
    <message>
        <location filename="../../desktop/ui/widgets/vote_ratings.py" line="+38"/>
        <source>Votes: Bradley-Terry ratings</source>
        <translation>投票：Bradley-Terry 评分</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>A rating from the blind votes: 1000 is the average here, 400 points are 10:1 odds. A tie or all bad counts half each way.</source>
        <translation>由盲测投票得出的评分：1000 为此处的平均水平，相差 400 分即 10:1 的胜算。平局或“都不好”按双方各半计。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Ratings from the votes</source>
        <translation>投票得出的评分</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Rating</source>
        <translation>评分</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>95% interval</source>
        <translation>95% 区间</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Pairs</source>
        <translation>两两比较</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Pairwise outcomes this model took part in (a vote among k answers makes k - 1 of them)</source>
        <translation>该模型参与的两两比较结果数（在 k 个回答中投一票会产生 k - 1 个）</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>From %1 votes (%2 pairwise outcomes).</source>
        <translation>基于 %1 票（%2 个两两比较结果）。</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>%1 is ahead of %2.</source>
        <translation>%1 领先于 %2。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 and %2 are level: the votes cannot tell them apart.</source>
        <translation>%1 与 %2 持平：投票无法区分二者。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>About %1 more votes to tell %2 and %3 apart.</source>
        <translation>大约还需 %1 票才能区分 %2 和 %3。</translation>
    </message>
</context>
</TS>
